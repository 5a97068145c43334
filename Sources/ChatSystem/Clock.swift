#if canImport(Glibc)
    import Glibc
#endif

/// The clocks: the wall clock (for outbox ordinals and `createdAt`, never for message order) and
/// the monotonic clock (for deadlines and latencies, never for timestamps).
public enum Clock {
    /// Nanoseconds since 1970 (CLOCK_REALTIME); 0 for a clock set before 1970.
    public static func nanosecondsSince1970() -> UInt64 {
        let now = read(CLOCK_REALTIME)
        return nanosecondsSince1970(seconds: Int64(now.tv_sec), nanoseconds: Int64(now.tv_nsec))
    }

    /// Whole seconds since 1970 on the wall clock (`time(2)`).
    public static func secondsSince1970() -> Int {
        Int(time(nil))
    }

    /// A `timespec` as nanoseconds since 1970, 0 for any time before 1970 (a clock set back that
    /// far must not crash a send: the outbox orders by ordinal, not by this value).
    public static func nanosecondsSince1970(seconds: Int64, nanoseconds: Int64) -> UInt64 {
        guard seconds >= 0, nanoseconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return UInt64.max / 2 }
        return whole + UInt64(nanoseconds)
    }

    /// Nanoseconds on the monotonic clock (CLOCK_MONOTONIC), counted from one second before
    /// this process first read it. The clock's own zero means nothing, and it can be negative:
    /// libfaketime moves it with the wall clock, so `faketime '@1969-12-31 23:00:00' chatdir
    /// sync` read -1 h there and trapped converting it. Within a process the differences are
    /// the clock's own.
    public static func monotonicNanoseconds() -> UInt64 {
        let now = read(CLOCK_MONOTONIC)
        let elapsed =
            (Int64(now.tv_sec) &- monotonicBase.seconds) &* 1_000_000_000
            &+ (Int64(now.tv_nsec) &- monotonicBase.nanoseconds)
        return UInt64(clamping: elapsed &+ 1_000_000_000)
    }

    /// The monotonic clock's first reading in this process.
    private static let monotonicBase: (seconds: Int64, nanoseconds: Int64) = {
        let now = read(CLOCK_MONOTONIC)
        return (Int64(now.tv_sec), Int64(now.tv_nsec))
    }()

    /// Milliseconds on the monotonic clock: for deadlines and latencies.
    public static func monotonicMilliseconds() -> Int {
        Int(monotonicNanoseconds() / 1_000_000)
    }

    /// `2026-11-29T10:02:07.123Z` for a time in nanoseconds since 1970.
    public static func iso8601(nanoseconds: UInt64) -> String {
        let parts = CalendarTime(utcSecondsSince1970: Int(nanoseconds / 1_000_000_000))
        let millis = Int(nanoseconds / 1_000_000 % 1000)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.year, 4))-\(pad(parts.month, 2))-\(pad(parts.day, 2))T"
            + "\(pad(parts.hour, 2)):\(pad(parts.minute, 2)):\(pad(parts.second, 2)).\(pad(millis, 3))Z"
    }

    private static func read(_ clock: clockid_t) -> timespec {
        var now = timespec()
        clock_gettime(clock, &now)
        return now
    }
}

/// A moment broken into calendar fields, in UTC (`gmtime_r`) or local time (`localtime_r`,
/// honouring `TZ`).
public struct CalendarTime: Hashable, Sendable {
    /// The year, like 2026.
    public var year: Int
    /// 1 to 12.
    public var month: Int
    /// 1 to 31.
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// 0 to 365: which day of the year (for "is it today").
    public var dayOfYear: Int

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        dayOfYear = 0
    }

    /// `seconds` since 1970 in UTC.
    /// Computed, not `gmtime_r(3)`: glibc reads `/etc/localtime` on a process's first call even
    /// for UTC, and that was 7 of `chatdir send`'s system calls (its `createdAt`).
    public init(utcSecondsSince1970 seconds: Int) {
        let (days, secondOfDay) = seconds.quotientAndRemainder(dividingBy: 86_400)
        let (day, second) = secondOfDay < 0 ? (days - 1, secondOfDay + 86_400) : (days, secondOfDay)
        // Days since 1970 to a civil date (the proleptic Gregorian calendar, in 400-year eras).
        let shifted = day + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfMarchYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfMarchYear + 2) / 153
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        self.init(
            year: year, month: month, day: dayOfMarchYear - (153 * monthFromMarch + 2) / 5 + 1,
            hour: second / 3_600, minute: second % 3_600 / 60, second: second % 60)
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let daysBeforeMonth = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334][month - 1]
        dayOfYear = daysBeforeMonth + (isLeap && month > 2 ? 1 : 0) + self.day - 1
    }

    /// `seconds` since 1970 in the local time zone.
    public init(localSecondsSince1970 seconds: Int) {
        var value = time_t(seconds)
        var parts = tm()
        localtime_r(&value, &parts)
        self.init(parts)
    }

    private init(_ parts: tm) {
        self.init(
            year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
            hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec))
        dayOfYear = Int(parts.tm_yday)
    }

    /// These fields read as UTC, in seconds since 1970 (`timegm(3)`; out-of-range fields roll over).
    /// Computed for the fields a parsed timestamp has (`view` converts every row's), where it is
    /// `timegm`'s answer; `timegm` itself for a month outside 1…12 or a field out of these ranges.
    public var utcSecondsSince1970: Int {
        let small = -100_000...100_000
        guard (1...12).contains(month), small.contains(year), small.contains(day), small.contains(hour),
            small.contains(minute), small.contains(second)
        else { return Self.withTimegm(self) }
        // A civil date to days since 1970 (the proleptic Gregorian calendar, in 400-year eras,
        // each year counted from March so the leap day is its last); linear in the day, so an
        // out-of-range day, hour, minute or second rolls over as `timegm` rolls it.
        let marchYear = month <= 2 ? year - 1 : year
        let era = (marchYear >= 0 ? marchYear : marchYear - 399) / 400
        let yearOfEra = marchYear - era * 400
        let dayOfMarchYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfMarchYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + hour * 3_600 + minute * 60 + second
    }

    private static func withTimegm(_ time: CalendarTime) -> Int {
        let (year, month, day, hour, minute, second) = (
            time.year, time.month, time.day, time.hour, time.minute, time.second
        )
        var parts = tm()
        parts.tm_year = Int32(clamping: year - 1900)
        parts.tm_mon = Int32(clamping: month - 1)
        parts.tm_mday = Int32(clamping: day)
        parts.tm_hour = Int32(clamping: hour)
        parts.tm_min = Int32(clamping: minute)
        parts.tm_sec = Int32(clamping: second)
        return Int(timegm(&parts))
    }
}
