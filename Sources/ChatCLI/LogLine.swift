import ChatSystem

/// A long-running worker's log line on stderr: with an ISO 8601 UTC time stamp in front when
/// stderr is not a terminal (journalctl, a log file), as it is on a terminal otherwise.
enum LogLine {
    /// `2026-12-01T18:10:00.123Z chatdir sync: caught up` when `stamped`, else `line`.
    static func format(_ line: String, stamped: Bool, nanoseconds: UInt64 = Clock.nanosecondsSince1970()) -> String {
        stamped ? Clock.iso8601(nanoseconds: nanoseconds) + " " + line : line
    }
}
