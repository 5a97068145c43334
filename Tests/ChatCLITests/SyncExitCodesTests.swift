import Testing

@testable import ChatCLI
@testable import ChatSync

/// The sysexits statuses of `chatdir sync` and `chatdir history`, decided here from cases only.
@Suite struct SyncExitCodesTests {
    @Test(
        "a pass's outcome and its exit status",
        arguments: [
            (SyncEngine.Report.Outcome.complete, Int32(0)), (.messageRejected, 65), (.storeFailed, 74),
            (.incomplete, 75), (.contractBroken, 76), (.tokenRefused, 77), (.serverUntrusted, 77),
        ])
    func pass(_ outcome: SyncEngine.Report.Outcome, _ code: Int32) {
        #expect(outcome.exitCode == code)
    }

    @Test(
        "the outcome of a pass: the token first, then rejected messages, then a broken contract, then a failed store write, then anything left"
    )
    func precedence() {
        var report = SyncEngine.Report()
        #expect(report.exitCode == 0)
        report.problems = [
            "c1: stopped catching up after 25 pages at sequence 25; more remain, run `chatdir sync` again"
        ]
        #expect(report.exitCode == 75)
        report.storeFailed = true
        #expect(report.exitCode == 74)
        report.brokeContract = true
        #expect(report.exitCode == 76)
        report.failed = ["c1 X: rejected by the server (400): no"]
        #expect(report.exitCode == 65)
        report.unauthorized = true
        #expect(report.exitCode == 77)
    }

    @Test(
        "a one-request command's error and its exit status",
        arguments: [
            (SyncError.unauthorized("unknown token"), Int32(77)),
            (SyncError.untrusted("certificate for 127.0.0.1 expired on 2026-11-30 17:39:35 UTC"), Int32(77)),
            (.temporary("GET /v1/me: 503 busy", retryAfter: nil), 75),
            (.transport(TransportError(.closed, "the server closed the connection mid-answer")), 75),
            (.transport(TransportError(.unreachable, "cannot connect to 127.0.0.1:9: Connection refused")), 75),
            (.contract("unexpected status 302 for GET /v1/me"), 76),
            (.rejected(status: 404, message: "no such conversation"), 76),
        ])
    func request(_ error: SyncError, _ code: Int32) {
        #expect(error.exitCode == code)
    }

    @Test("the live worker exits 0 when stopped, 77 when the token was refused")
    func live() {
        #expect(liveExitCode(nil) == 0)
        #expect(liveExitCode(.unauthorized("the live connection was refused")) == 77)
    }
}
