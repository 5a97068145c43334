#if canImport(Glibc)
import Glibc
#endif

/// Turns the server's `sentAt` (ISO 8601 UTC, like `2026-11-29T10:02:07.000Z`) into local time
/// for a row: `10:02` today, `2026-11-28 10:02` on other days. Honours `TZ`. A string that is
/// not in that form is shown as it is (it is the server's, kept as given).
struct TimeText {
    private let today: (year: Int32, day: Int32)

    init(now: time_t = time(nil)) {
        var seconds = now
        var parts = tm()
        localtime_r(&seconds, &parts)
        today = (parts.tm_year, parts.tm_yday)
    }

    func format(_ iso: String) -> String {
        guard let seconds = Self.parse(iso) else { return iso }
        var value = seconds
        var parts = tm()
        localtime_r(&value, &parts)
        let time = Self.pad(parts.tm_hour) + ":" + Self.pad(parts.tm_min)
        if parts.tm_year == today.year && parts.tm_yday == today.day { return time }
        return "\(parts.tm_year + 1900)-\(Self.pad(parts.tm_mon + 1))-\(Self.pad(parts.tm_mday)) \(time)"
    }

    /// Seconds since 1970 of `YYYY-MM-DDTHH:MM:SS[.fff]Z`; nil for anything else.
    static func parse(_ iso: String) -> time_t? {
        let bytes = Array(iso.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":") else { return nil }
        func number(_ range: Range<Int>) -> Int32? {
            guard bytes[range].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int32(String(decoding: bytes[range], as: UTF8.self))
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19) else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return timegm(&parts)
    }

    private static func pad(_ value: Int32) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
