import ChatSystem
import Foundation
import Testing

@testable import ChatCLI

/// The dates `search --since/--until` take. TZ is UTC in the test runner's children, not in
/// this process: each case states its zone through the Z form or compares two local readings.
@Suite struct SearchDateTests {
    @Test(
        "the server's UTC forms are read exactly",
        arguments: [
            ("2026-11-29T12:20:07Z", 1_795_954_807), ("2026-11-29T12:20:07.000Z", 1_795_954_807),
            ("2026-11-29T12:20Z", 1_795_954_800),
        ])
    func utc(text: String, seconds: Int) {
        #expect(SearchDate.parse(text) == seconds)
    }

    @Test("local forms agree with each other: a date is its midnight, T and a space are the same")
    func localForms() throws {
        let midnight = try #require(SearchDate.parse("2026-11-29"))
        #expect(SearchDate.parse("2026-11-29T00:00") == midnight)
        #expect(SearchDate.parse("2026-11-29 12:20") == midnight + 12 * 3600 + 20 * 60)
        #expect(SearchDate.parse("2026-11-29T12:20:07") == midnight + 12 * 3600 + 20 * 60 + 7)
        #expect(SearchDate.parse("2026-11-30") == midnight + 86_400)
    }

    @Test("HH:MM is today's")
    func today() throws {
        let now = 1_795_954_807
        let parts = CalendarTime(localSecondsSince1970: now)
        let date = "\(parts.year)-\(parts.month < 10 ? "0" : "")\(parts.month)-\(parts.day < 10 ? "0" : "")\(parts.day)"
        #expect(SearchDate.parse("08:05", now: now) == SearchDate.parse(date + " 08:05"))
    }

    @Test(
        "anything else is refused",
        arguments: [
            "", "yesterday", "2026-13-01", "2026-11-32", "2026-11-29T25:00", "12:60", "2026-11-29T12", "2026/11/29",
            "2026-11-29T12:20:07+01:00",
        ])
    func refused(text: String) {
        #expect(SearchDate.parse(text) == nil)
    }
}
