import ChatSystem

/// A moment given on the command line (`search --since/--until`), as seconds since 1970.
///
/// Accepted: what `view` prints (`2026-11-29 12:20`, and `12:20` for today), ISO 8601 dates and
/// times (`2026-11-29`, `2026-11-29T12:20`, `2026-11-29T12:20:07`), all in local time (`TZ`), and
/// the server's own UTC form with `Z` (`2026-11-29T12:20:07Z`, `…07.000Z`). A date alone is its
/// midnight.
enum SearchDate {
    static let forms = "2026-11-29, 2026-11-29T12:20, 2026-11-29 12:20, 12:20 (today), or 2026-11-29T12:20:07Z (UTC)"

    static func parse(_ text: String, now: Int = Clock.secondsSince1970()) -> Int? {
        if text.hasSuffix("Z") {
            if let seconds = TimeText.parse(text) { return seconds }
            // `2026-11-29T12:20Z`: minutes in UTC.
            return fields(String(text.dropLast())).map {
                CalendarTime(year: $0.0, month: $0.1, day: $0.2, hour: $0.3, minute: $0.4, second: $0.5)
                    .utcSecondsSince1970
            }
        }
        if let time = clock(Array(text.utf8)) {
            let today = CalendarTime(localSecondsSince1970: now)
            return local(
                CalendarTime(
                    year: today.year, month: today.month, day: today.day, hour: time.hour, minute: time.minute,
                    second: 0))
        }
        guard let parts = fields(text) else { return nil }
        return local(
            CalendarTime(year: parts.0, month: parts.1, day: parts.2, hour: parts.3, minute: parts.4, second: parts.5))
    }

    /// `YYYY-MM-DD`, then optionally `T` or a space and `HH:MM`, then optionally `:SS`.
    private static func fields(_ text: String) -> (Int, Int, Int, Int, Int, Int)? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            let year = number(bytes, 0..<4), let month = number(bytes, 5..<7), let day = number(bytes, 8..<10),
            (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        if bytes.count == 10 { return (year, month, day, 0, 0, 0) }
        guard bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " ") else { return nil }
        let rest = Array(bytes[11...])
        if let time = clock(rest) { return (year, month, day, time.hour, time.minute, 0) }
        guard rest.count == 8, rest[5] == UInt8(ascii: ":"), let time = clock(Array(rest[0..<5])),
            let second = number(rest, 6..<8), second < 61
        else { return nil }
        return (year, month, day, time.hour, time.minute, second)
    }

    /// `HH:MM`.
    private static func clock(_ bytes: [UInt8]) -> (hour: Int, minute: Int)? {
        guard bytes.count == 5, bytes[2] == UInt8(ascii: ":"), let hour = number(bytes, 0..<2),
            let minute = number(bytes, 3..<5),
            hour < 24, minute < 60
        else { return nil }
        return (hour, minute)
    }

    private static func number(_ bytes: [UInt8], _ range: Range<Int>) -> Int? {
        guard bytes[range].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return bytes[range].reduce(0) { $0 * 10 + Int($1 - 0x30) }
    }

    /// Seconds since 1970 of `parts` read as local time: the UTC reading moved by the zone's
    /// offset at that moment (found by asking `localtime_r` what it shows; twice, for a moment
    /// near a daylight-saving change).
    private static func local(_ parts: CalendarTime) -> Int {
        let wanted = parts.utcSecondsSince1970
        var guess = wanted
        for _ in 0..<2 {
            let shown = CalendarTime(localSecondsSince1970: guess).utcSecondsSince1970
            guess += wanted - shown
        }
        return guess
    }
}
