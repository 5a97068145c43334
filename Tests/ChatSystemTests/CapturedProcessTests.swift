import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@Suite(.ownThreads) struct CapturedProcessTests {
    @Test("stdout, stderr and the exit status are kept apart")
    func captures() {
        let result = CapturedProcess.run(["/bin/sh", "-c", "echo out; echo err >&2; exit 3"], timeout: .seconds(60))
        #expect(result.status == 3)
        #expect(result.standardOutput == Array("out\n".utf8))
        #expect(result.standardError == Array("err\n".utf8))
        #expect(!result.timedOut)
    }

    @Test("output past the limit is read and dropped, so the program never blocks on a full pipe")
    func limit() {
        let result = CapturedProcess.run(
            ["/bin/sh", "-c", "head -c 200000 /dev/zero; echo done >&2"], timeout: .seconds(60), limit: 10)
        #expect(result.status == 0)
        #expect(result.standardOutput.count == 10)
        #expect(result.standardError == Array("done\n".utf8))
    }

    @Test("a program past its timeout is killed and reaped")
    func timeout() {
        let result = CapturedProcess.run(["/bin/sh", "-c", "exec sleep 600"], timeout: .milliseconds(300))
        #expect(result.timedOut)
        #expect(result.status == 128 + 9)
    }

    @Test("a program that closes its output and goes on is bounded by the same timeout")
    func closedOutput() {
        let result = CapturedProcess.run(
            ["/bin/sh", "-c", "exec >&- 2>&-; exec sleep 600"], timeout: .milliseconds(300))
        #expect(result.timedOut)
    }

    @Test("a program that exits while a process it left in the background holds its pipes is done when it exits")
    func backgroundDescendant() throws {
        // The shell prints, starts `sleep` holding both pipes, says its pid and exits 0.
        let result = CapturedProcess.run(
            ["/bin/sh", "-c", "echo alice-token; sleep 600 & echo $! >&2"], timeout: .seconds(30))
        let sleeper = Int32(
            String(decoding: result.standardError, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
        if let sleeper { kill(sleeper, SIGKILL) }
        #expect(!result.timedOut)
        #expect(result.status == 0)
        #expect(result.standardOutput == Array("alice-token\n".utf8))
        #expect(sleeper != nil, "stderr: \(String(decoding: result.standardError, as: UTF8.self))")
    }

    @Test("a program that cannot be started: status 127 and why")
    func notFound() {
        let result = CapturedProcess.run(["/nonexistent/program"], timeout: .seconds(60))
        #expect(result.status == 127)
        #expect(!result.standardError.isEmpty)
    }
}
