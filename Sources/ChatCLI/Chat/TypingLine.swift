import ChatDomain

/// Who is typing, as the line under the rows says it (`chat` and `view --follow` alike).
enum TypingLine {
    /// Another member's signal shows this long (milliseconds).
    static let shown: Int64 = 6_000

    /// `bob is typing…`, `bob and carol are typing…`, `3 people are typing…`; nil when no one
    /// but `me` signalled within ``shown`` of `now`. A time far in the future (another
    /// clock's garbage) does not show either.
    static func text(_ typing: [(user: UserID, milliseconds: Int64)], me: UserID, now: Int64) -> String? {
        var seen = Set<UserID>()
        let names = typing.filter { $0.user != me && isRecent($0.milliseconds, now: now) }.map(\.user).filter {
            seen.insert($0).inserted
        }.sorted()
        switch names.count {
        case 0: return nil
        case 1: return "\(names[0]) is typing…"
        case 2: return "\(names[0]) and \(names[1]) are typing…"
        default: return "\(names.count) people are typing…"
        }
    }

    static func isRecent(_ milliseconds: Int64, now: Int64) -> Bool {
        let age = now.subtractingReportingOverflow(milliseconds)
        return !age.overflow && age.partialValue <= shown && age.partialValue >= -shown
    }
}
