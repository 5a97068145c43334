import ChatSystem
import ChatTestSupport
import Foundation
import Testing

/// A child that hangs fails its test within its deadline instead of holding the whole run:
/// the waits the suite's helpers make on children all end.
@Suite(.ownThreads) struct ChildDeadlineTests {
    @Test("spawnAndWait kills a child past its deadline and says so, even while a grandchild holds the pipes")
    func spawnedRunDeadline() throws {
        let result = try spawnAndWait(
            "/bin/sh", ["-c", "sleep 600 & echo $! >&2; exec sleep 600"],
            environment: ProcessInfo.processInfo.environment,
            deadline: .milliseconds(500))
        if let grandchild = Int32(
            String(decoding: result.stderr, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        {
            kill(grandchild, SIGKILL)
        }
        #expect(result.timedOut)
        #expect(result.signaled && result.status == SIGKILL)
    }

    @Test("a TestProcess past its deadline is killed, and waitUntilExit records it as the test's issue")
    func testProcessDeadline() throws {
        let process = TestProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sleep")
        process.arguments = ["600"]
        process.deadline = .milliseconds(300)
        try process.run()
        withKnownIssue("the child ran past its deadline") {
            process.waitUntilExit()
        }
        #expect(process.killedAtDeadline)
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL)
    }
}
