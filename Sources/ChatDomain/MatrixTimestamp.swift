/// A Matrix event's `origin_server_ts` as a record's `sentAt`.
public enum MatrixTimestamp {
    /// The last millisecond of year 9999: four-digit years keep every `sentAt` the same length,
    /// so the text sorts as the time does.
    public static let latest: Int64 = 253_402_300_799_999

    /// `milliseconds` since 1970-01-01T00:00:00Z as `YYYY-MM-DDTHH:MM:SS.mmmZ`; nil before 1970
    /// or after year 9999. Integer arithmetic on the proleptic Gregorian calendar in UTC (no
    /// date formatter, no time zone), so every device writes the same text.
    public static func sentAt(milliseconds: Int64) -> String? {
        guard (0...latest).contains(milliseconds) else { return nil }
        let days = milliseconds / 86_400_000
        let inDay = milliseconds % 86_400_000
        let (year, month, day) = civil(daysSince1970: days)
        var text = ""
        text.reserveCapacity(24)
        text += digits(year, 4) + "-" + digits(month, 2) + "-" + digits(day, 2)
        text += "T" + digits(inDay / 3_600_000, 2) + ":" + digits(inDay / 60_000 % 60, 2)
        text += ":" + digits(inDay / 1000 % 60, 2) + "." + digits(inDay % 1000, 3) + "Z"
        return text
    }

    /// Year, month and day of a day count from 1970-01-01 (not negative here): whole 400-year
    /// eras of 146,097 days, years counted from March so the leap day ends the year.
    static func civil(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468 // days from 0000-03-01
        let era = shifted / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private static func digits(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
