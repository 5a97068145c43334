import ChatSystem
import Testing

@testable import ChatCLI

/// How a row's `sentAt` is shown: local time today, date and time on other days, anything
/// else as it came.
@Suite struct TimeTextTests {
    /// The format written out with string interpolation, as TimeText did before it wrote bytes.
    static func reference(_ iso: String, now: Int) -> String {
        guard let seconds = TimeText.parse(iso) else { return iso }
        func pad(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let parts = CalendarTime(localSecondsSince1970: seconds)
        let today = CalendarTime(localSecondsSince1970: now)
        let time = pad(parts.hour) + ":" + pad(parts.minute)
        if parts.year == today.year && parts.dayOfYear == today.dayOfYear { return time }
        return "\(parts.year)-\(pad(parts.month))-\(pad(parts.day)) \(time)"
    }

    @Test(
        "times are the same text as the interpolated format: today, other days, year edges, odd input",
        arguments: [
            "2026-11-29T12:00:00.000Z", "2026-11-29T00:05:09Z", "2026-11-28T23:59:59.999Z", "2026-01-01T00:00:00.000Z",
            "1999-12-31T23:59:59Z", "0001-01-01T00:00:00Z", "0000-01-01T00:30:00.000Z", "9999-12-31T23:59:00.000Z",
            "2026-11-29T12:00:00", "2026-11-29 12:00:00.000Z", "2026-1x-29T12:00:00.000Z", "", "yesterday",
        ])
    func sameAsInterpolated(_ iso: String) throws {
        let now = try #require(TimeText.parse("2026-11-29T12:00:00.000Z"))
        #expect(TimeText(now: now).format(iso) == Self.reference(iso, now: now))
    }

    @Test("a time that is not ISO 8601 UTC is shown as the server gave it")
    func notISO() {
        #expect(TimeText(now: 0).format("2026-11-29T12:00:00+01:00") == "2026-11-29T12:00:00+01:00")
        #expect(TimeText.parse("2026-11-29T1a:00:00.000Z") == nil)
        #expect(TimeText.parse("2026-11-29T12:00:00.000Z") == 1_795_953_600)
    }
}
