import ChatSystem

/// Turns the server's `sentAt` (ISO 8601 UTC, like `2026-11-29T10:02:07.000Z`) into local time
/// for a row: `10:02` today, `2026-11-28 10:02` on other days. Honours `TZ`. A string that is
/// not in that form is shown as it is (it is the server's, kept as given).
struct TimeText {
    private let today: (year: Int, day: Int)

    init(now: Int = Clock.secondsSince1970()) {
        let parts = CalendarTime(localSecondsSince1970: now)
        today = (parts.year, parts.dayOfYear)
    }

    func format(_ iso: String) -> String {
        guard let seconds = Self.parse(iso) else { return iso }
        let parts = CalendarTime(localSecondsSince1970: seconds)
        let time = Self.pad(parts.hour) + ":" + Self.pad(parts.minute)
        if parts.year == today.year && parts.dayOfYear == today.day { return time }
        return "\(parts.year)-\(Self.pad(parts.month))-\(Self.pad(parts.day)) \(time)"
    }

    /// Seconds since 1970 of `YYYY-MM-DDTHH:MM:SS[.fff]Z`; nil for anything else.
    static func parse(_ iso: String) -> Int? {
        let bytes = Array(iso.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            guard bytes[range].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int(String(decoding: bytes[range], as: UTF8.self))
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        return CalendarTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second).utcSecondsSince1970
    }

    private static func pad(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
