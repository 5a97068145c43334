import ChatSystem
import Testing

@Suite struct ClockTests {
    @Test("calendar fields in UTC round-trip through seconds since 1970", arguments: [0, 1_764_410_527, 951_782_400])
    func utcRoundTrip(_ seconds: Int) {
        let parts = CalendarTime(utcSecondsSince1970: seconds)
        #expect(parts.utcSecondsSince1970 == seconds)
    }

    @Test("ISO 8601 in UTC with milliseconds")
    func iso8601() {
        #expect(Clock.iso8601(nanoseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(Clock.iso8601(nanoseconds: 951_782_400_123_000_000) == "2000-02-29T00:00:00.123Z")
    }

    @Test("the monotonic clock never goes back")
    func monotonic() {
        let first = Clock.monotonicNanoseconds()
        let second = Clock.monotonicNanoseconds()
        #expect(second >= first)
        #expect(Clock.monotonicMilliseconds() >= Int(first / 1_000_000))
    }
}
