#if canImport(Glibc)
import Glibc
#endif

/// The local clock, for outbox ordinals and `createdAt` (never for message order).
public enum Clock {
    /// Nanoseconds since 1970 (CLOCK_REALTIME); 0 for a clock set before 1970.
    public static func nanosecondsSince1970() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return nanosecondsSince1970(seconds: Int64(now.tv_sec), nanoseconds: Int64(now.tv_nsec))
    }

    /// A `timespec` as nanoseconds since 1970, 0 for any time before 1970 (a clock set back that
    /// far must not crash a send: the outbox orders by ordinal, not by this value).
    public static func nanosecondsSince1970(seconds: Int64, nanoseconds: Int64) -> UInt64 {
        guard seconds >= 0, nanoseconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return UInt64.max / 2 }
        return whole + UInt64(nanoseconds)
    }

    /// `2026-11-29T10:02:07.123Z` for a time in nanoseconds since 1970.
    public static func iso8601(nanoseconds: UInt64) -> String {
        var seconds = time_t(nanoseconds / 1_000_000_000)
        let millis = Int(nanoseconds / 1_000_000 % 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(millis), 3))Z"
    }
}
