import Testing

@testable import ChatCLI

@Suite struct StatusReportTests {
    @Test(
        "percentiles are nearest-rank over what there is",
        arguments: [
            ([Int](), 0.5, nil),
            ([7], 0.5, 7), ([7], 0.95, 7),
            ([30, 10, 20], 0.5, 20), ([30, 10, 20], 0.95, 30),
            (Array(1...100), 0.5, 50), (Array(1...100), 0.95, 95),
        ] as [([Int], Double, Int?)])
    func percentile(_ values: [Int], _ fraction: Double, _ expected: Int?) {
        #expect(StatusReport.percentile(values, fraction) == expected)
    }

    @Test(
        "whole-millisecond figures never read 0 ms",
        arguments: [(0, "< 1 ms"), (1, "1 ms"), (41, "41 ms")] as [(Int, String)])
    func wholeMilliseconds(_ value: Int, _ expected: String) {
        #expect(StatusReport.milliseconds(value) == expected)
    }

    @Test(
        "figures measured to the microsecond read to a tenth below 10 ms, never 0 ms",
        arguments: [
            (0, "< 0.1 ms"), (0.04, "< 0.1 ms"), (0.05, "0.1 ms"), (0.312, "0.3 ms"), (4.25, "4.3 ms"),
            (9.94, "9.9 ms"),
            (9.96, "10 ms"), (18.4, "18 ms"), (1234.5, "1235 ms"),
        ] as [(Double, String)])
    func fineMilliseconds(_ value: Double, _ expected: String) {
        #expect(StatusReport.milliseconds(value) == expected)
    }

    @Test(
        "ages read as a person says them",
        arguments: [
            (0, "0 s"), (59_999, "59 s"), (60_000, "1 min"), (3_599_000, "59 min"),
            (3_600_000, "1 h 0 min"), (7_500_000, "2 h 5 min"), (86_400_000, "1 d"),
        ] as [(Int64, String)])
    func age(_ milliseconds: Int64, _ expected: String) {
        #expect(StatusReport.age(milliseconds) == expected)
    }
}
