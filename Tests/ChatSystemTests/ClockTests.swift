import ChatSystem
import Glibc
import Testing

@Suite struct ClockTests {
    @Test("calendar fields in UTC round-trip through seconds since 1970", arguments: [0, 1_764_410_527, 951_782_400])
    func utcRoundTrip(_ seconds: Int) {
        let parts = CalendarTime(utcSecondsSince1970: seconds)
        #expect(parts.utcSecondsSince1970 == seconds)
    }

    @Test(
        "UTC calendar fields are gmtime_r's, computed without it: epoch, leap days, centuries, before 1970, far ahead",
        arguments: [
            0, -1, -86_400, -86_401, 59, 86_399, 86_400, 951_782_399, 951_782_400, 951_868_800, 4_107_542_400,
            4_107_456_000,
            1_709_164_800, 1_709_251_199, 1_735_689_599, 1_735_689_600, 1_764_410_527, -2_208_988_800, -62_135_596_800,
            253_402_300_799,
        ] + (0..<200).map { $0 * 7_919_999 - 400_000_000 })
    func utcFields(_ seconds: Int) {
        var value = time_t(seconds)
        var parts = tm()
        gmtime_r(&value, &parts)
        let computed = CalendarTime(utcSecondsSince1970: seconds)
        #expect(
            computed.year == Int(parts.tm_year) + 1900 && computed.month == Int(parts.tm_mon) + 1
                && computed.day == Int(parts.tm_mday))
        #expect(
            computed.hour == Int(parts.tm_hour) && computed.minute == Int(parts.tm_min)
                && computed.second == Int(parts.tm_sec))
        #expect(computed.dayOfYear == Int(parts.tm_yday))
    }

    @Test(
        "calendar fields read as UTC seconds are timegm's, rolled-over fields too: every month of leap and common years, days 0 to 32, hours, minutes and seconds past their ranges, years 0 to 9999"
    )
    func utcSecondsAreTimegm() {
        var checked = 0
        for year in [0, 1, 4, 99, 100, 400, 1600, 1899, 1900, 1969, 1970, 1971, 2000, 2024, 2026, 2100, 2400, 9999] {
            for month in 1...12 {
                for (day, hour, minute, second) in [
                    (1, 0, 0, 0), (0, 0, 0, 0), (28, 23, 59, 59), (29, 12, 0, 0), (30, 0, 0, 60), (31, 24, 60, 0),
                    (32, 99, 99, 99),
                ] {
                    let time = CalendarTime(
                        year: year, month: month, day: day, hour: hour, minute: minute, second: second)
                    var parts = tm()
                    (parts.tm_year, parts.tm_mon, parts.tm_mday) = (Int32(year - 1900), Int32(month - 1), Int32(day))
                    (parts.tm_hour, parts.tm_min, parts.tm_sec) = (Int32(hour), Int32(minute), Int32(second))
                    let expected = Int(timegm(&parts))
                    #expect(time.utcSecondsSince1970 == expected, "\(year)-\(month)-\(day) \(hour):\(minute):\(second)")
                    checked += 1
                }
            }
        }
        #expect(checked == 18 * 12 * 7)
        // Outside the computed ranges, timegm answers: a month of 13 is January of the next year.
        #expect(
            CalendarTime(year: 2026, month: 13, day: 1, hour: 0, minute: 0, second: 0).utcSecondsSince1970
                == CalendarTime(year: 2027, month: 1, day: 1, hour: 0, minute: 0, second: 0).utcSecondsSince1970)
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
