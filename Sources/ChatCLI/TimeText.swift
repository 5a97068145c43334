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
        let isToday = parts.year == today.year && parts.dayOfYear == today.day
        guard isToday || (1000...9999).contains(parts.year) else {
            // A year of other than four digits, written as it always was (`1-01-01`, `-1-12-31`).
            return
                "\(parts.year)-\(Self.pad(parts.month))-\(Self.pad(parts.day)) \(Self.pad(parts.hour)):\(Self.pad(parts.minute))"
        }
        // Written as bytes: every row of `view` formats its time.
        return String(unsafeUninitializedCapacity: 16) { bytes in
            var count = 0
            func digits(_ value: Int, _ width: Int) {
                var divisor = 1
                for _ in 1..<width { divisor *= 10 }
                while divisor > 0 {
                    bytes[count] = UInt8(ascii: "0") + UInt8(value / divisor % 10)
                    count += 1
                    divisor /= 10
                }
            }
            func byte(_ character: Unicode.Scalar) {
                bytes[count] = UInt8(ascii: character)
                count += 1
            }
            if !isToday {
                digits(parts.year, 4)
                byte("-")
                digits(parts.month, 2)
                byte("-")
                digits(parts.day, 2)
                byte(" ")
            }
            digits(parts.hour, 2)
            byte(":")
            digits(parts.minute, 2)
            return count
        }
    }

    /// Seconds since 1970 of `YYYY-MM-DDTHH:MM:SS[.fff]Z`; nil for anything else.
    static func parse(_ iso: String) -> Int? {
        // A native string's bytes are read in place; only a bridged one is copied.
        if let seconds = iso.utf8.withContiguousStorageIfAvailable(parse(utf8:)) { return seconds }
        return Array(iso.utf8).withUnsafeBufferPointer(parse(utf8:))
    }

    private static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard bytes.count >= 20, bytes[bytes.count - 1] == UInt8(ascii: "Z"), bytes[4] == UInt8(ascii: "-"),
            bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        return CalendarTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
            .utcSecondsSince1970
    }

    private static func pad(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}
