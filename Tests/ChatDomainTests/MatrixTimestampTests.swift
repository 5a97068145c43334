import ChatDomain
import ChatTestSupport
import Foundation
import Testing

/// `origin_server_ts` as a record's `sentAt`, checked against GNU `date -u`.
@Suite struct MatrixTimestampTests {
    @Test(
        "fixed instants read as UTC text with milliseconds",
        arguments: [
            (Int64(0), "1970-01-01T00:00:00.000Z"),
            (1, "1970-01-01T00:00:00.001Z"),
            (951_782_400_000, "2000-02-29T00:00:00.000Z"),
            (1_709_251_199_999, "2024-02-29T23:59:59.999Z"),
            (2_147_483_647_000, "2038-01-19T03:14:07.000Z"),
            (2_147_483_648_123, "2038-01-19T03:14:08.123Z"),
            (4_107_542_400_000, "2100-03-01T00:00:00.000Z"),
            (253_402_300_799_999, "9999-12-31T23:59:59.999Z"),
        ])
    func fixed(milliseconds: Int64, text: String) {
        #expect(MatrixTimestamp.sentAt(milliseconds: milliseconds) == text)
    }

    @Test(
        "before 1970 and after year 9999 are refused",
        arguments: [Int64(-1), -86_400_000, 253_402_300_800_000, .max, .min])
    func refused(milliseconds: Int64) {
        #expect(MatrixTimestamp.sentAt(milliseconds: milliseconds) == nil)
    }

    @Test("every instant agrees with date -u: month and year ends, leap days, 2038 and later, random ones")
    func agreesWithDate() throws {
        var instants: [Int64] = [0, 59_999, 86_399_999, 86_400_000, 253_402_300_799_999]
        // The last and first millisecond around each New Year and 1 March from 1970 to 2420 and
        // near the end of the range: leap years, centuries, 400-year eras.
        for year in Array(1970...2420) + Array(9990...9999) {
            for (month, day) in [(1, 1), (3, 1)] {
                let seconds = Self.secondsSince1970(year: year, month: month, day: day)
                instants += [seconds * 1000, seconds * 1000 - 1].filter { $0 >= 0 }
            }
        }
        var generator = SystemRandomNumberGenerator()
        instants += (0..<500).map { _ in Int64.random(in: 0...MatrixTimestamp.latest, using: &generator) }
        let input = instants.map { "@\($0 / 1000)" }.joined(separator: "\n") + "\n"
        let directory = try TemporaryDirectory()
        let file = directory.file("instants")
        try Data(input.utf8).write(to: URL(fileURLWithPath: file))
        let result = try ChatdirProcess.run(
            ["-u", "-f", file, "+%Y-%m-%dT%H:%M:%S"], environment: ["LC_ALL": "C"],
            executable: URL(fileURLWithPath: "/usr/bin/date"))
        #expect(result.status == 0, "\(result.stderr)")
        let printed = result.lines
        #expect(printed.count == instants.count)
        for (instant, seconds) in zip(instants, printed) {
            let milliseconds = String(instant % 1000)
            let expected = seconds + "." + String(repeating: "0", count: 3 - milliseconds.count) + milliseconds + "Z"
            #expect(MatrixTimestamp.sentAt(milliseconds: instant) == expected, "\(instant)")
        }
    }

    /// Seconds from 1970 to midnight UTC of a date, counted day by day in the test (no
    /// calendar arithmetic shared with the code under test).
    static func secondsSince1970(year: Int, month: Int, day: Int) -> Int64 {
        func leap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }
        var days = 0
        for earlier in 1970..<year { days += leap(earlier) ? 366 : 365 }
        let lengths = [31, leap(year) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        days += lengths.prefix(month - 1).reduce(0, +) + day - 1
        return Int64(days) * 86_400
    }
}
