import ChatSystem
import Glibc
import Testing

@Suite struct ClockTests {
    @Test("calendar fields in UTC round-trip through seconds since 1970", arguments: [0, 1_764_410_527, 951_782_400])
    func utcRoundTrip(_ seconds: Int) {
        let parts = CalendarTime(utcSecondsSince1970: seconds)
        #expect(parts.utcSecondsSince1970 == seconds)
    }

    @Test("UTC calendar fields are gmtime_r's, computed without it: epoch, leap days, centuries, before 1970, far ahead", arguments: [
        0, -1, -86_400, -86_401, 59, 86_399, 86_400, 951_782_399, 951_782_400, 951_868_800, 4_107_542_400, 4_107_456_000,
        1_709_164_800, 1_709_251_199, 1_735_689_599, 1_735_689_600, 1_764_410_527, -2_208_988_800, -62_135_596_800, 253_402_300_799,
    ] + (0..<200).map { $0 * 7_919_999 - 400_000_000 })
    func utcFields(_ seconds: Int) {
        var value = time_t(seconds)
        var parts = tm()
        gmtime_r(&value, &parts)
        let computed = CalendarTime(utcSecondsSince1970: seconds)
        #expect(computed.year == Int(parts.tm_year) + 1900 && computed.month == Int(parts.tm_mon) + 1 && computed.day == Int(parts.tm_mday))
        #expect(computed.hour == Int(parts.tm_hour) && computed.minute == Int(parts.tm_min) && computed.second == Int(parts.tm_sec))
        #expect(computed.dayOfYear == Int(parts.tm_yday))
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
