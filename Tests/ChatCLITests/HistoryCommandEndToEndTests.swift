import ChatTestSupport
import Foundation
import Testing

/// `chatdir history` as a user runs it, where the other tests do not reach: stopped by the user.
@Suite(.ownThreads) struct HistoryCommandEndToEndTests {
    @Test(
        "Ctrl-C while history waits out a server's Retry-After: exit 130 and \"interrupted\", not a broken wire contract"
    )
    func interruptedWhileWaiting() throws {
        // Every request is answered 429 with Retry-After: 30, so history is waiting when the
        // signal comes (it has sent a request and got its answer).
        let recorder = try HeadRecorder(
            status: "429 Too Many Requests", headers: ["Retry-After: 30"], body: #"{"error":"slow down"}"#)
        defer { recorder.stop() }
        let directory = try TemporaryDirectory()
        let store = directory.file("alice")
        #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", recorder.url, store]).status == 0)
        let errors = Pipe()
        let process = try ChatdirProcess.start(
            ["history", "--store", store, "dinner"], environment: ["CHATDIR_TOKEN": "alice-token"],
            standardError: errors)
        waitUntil(timeout: .seconds(30)) { !recorder.receivedHeads.isEmpty || !process.isRunning }
        #expect(!recorder.receivedHeads.isEmpty, "history sent no request")
        process.interrupt()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 130, "\(stderr)")
        #expect(stderr.contains("chatdir history: interrupted"), "\(stderr)")
        #expect(!stderr.contains("wire contract"), "\(stderr)")
    }
}
