import ChatDomain
import ChatStore
import ChatSystem
import ChatTestSupport
import Testing

@testable import ChatSync

/// The cases of ``SyncError``: the words a person reads, and what the worker and the exit
/// status make of each case (never of the words).
@Suite(.ownThreads) struct SyncErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var error: SyncError
        var words: String
        var temporary: Bool
        var retryable: Bool
        var testDescription: String { words }
    }

    static let cases: [Case] = [
        Case(
            error: .temporary("GET /v1/me: 503 busy", retryAfter: .seconds(2)),
            words: "server unavailable: GET /v1/me: 503 busy (asked to wait 2.0s)", temporary: true, retryable: true),
        Case(
            error: .transport(TransportError(.timedOut, "no answer in time", context: "GET /v1/me")),
            words: "server unavailable: GET /v1/me: no answer in time", temporary: true, retryable: true),
        Case(
            error: .transport(TransportError(SystemError(operation: "recv", path: "", errno: .connectionReset))),
            words: "server unavailable: recv: Connection reset by peer", temporary: true, retryable: true),
        Case(
            error: .transport(TransportError(SystemError(operation: "poll", path: "", errno: .tooManyOpenFiles))),
            words: "server unavailable: poll: Too many open files", temporary: true, retryable: true),
        Case(
            error: .transport(TransportError(.unreachable, "cannot connect to 127.0.0.1:9: Connection refused")),
            words: "server unreachable: cannot connect to 127.0.0.1:9: Connection refused", temporary: true,
            retryable: false),
        Case(
            error: .transport(
                TransportError(
                    .unreachable, "cannot resolve nowhere: Name or service not known", context: "http://nowhere:80")),
            words: "server unreachable: http://nowhere:80: cannot resolve nowhere: Name or service not known",
            temporary: true, retryable: false),
        Case(
            error: .rejected(status: 400, message: "text too long"),
            words: "rejected by the server (400): text too long", temporary: false, retryable: false),
        Case(
            error: .unauthorized("401: unknown token"),
            words: "the server refused the token (401: unknown token); check CHATDIR_TOKEN or --token-file",
            temporary: false, retryable: false),
        Case(
            error: .contract("chunked answers are not part of the contract"),
            words:
                "the server broke the wire contract: chunked answers are not part of the contract; nothing from that answer was stored",
            temporary: false, retryable: false),
    ]

    @Test("each case's words, and whether it is temporary and retried within a pass", arguments: cases)
    func words(_ example: Case) {
        #expect(example.error.description == example.words)
        #expect(example.error.isTemporary == example.temporary)
        #expect(example.error.isRetryable == example.retryable)
    }

    @Test(
        "a temporary failure whose server text says \"broke the wire contract\" still ends the pass as incomplete (exit 75), not as a broken contract (76)"
    )
    func outcomeFromCaseNotWords() async throws {
        let busy = String.answer(503, #"{"error":"the upstream broke the wire contract; try later"}"#)
        let scripted = ScriptedConnector((0..<4).map { _ in ScriptedStream([.bytes(Array(busy.utf8))]) })
        let directory = try TemporaryDirectory()
        var options = SyncEngine.Options()
        options.connector = scripted.connector
        options.attemptsPerPass = 2
        options.backoff = Backoff(initial: .milliseconds(1), maximum: .milliseconds(2))
        // Wall-clock deadlines, generous as in `fastOptions`: in the parallel suite this pass of
        // two requests once ran past the default 30 s budget.
        options.passBudget = .seconds(300)
        options.requestTimeout = .seconds(120)
        let store = try Store.create(at: directory.path + "/store", manifest: Manifest(userID: try UserID("alice")))
        let engine = try SyncEngine(
            store: store, server: ServerAddress(host: "chat.example", port: 8080), token: "t", options: options)
        let report = await engine.syncOnce()
        #expect(
            report.problems == ["server unavailable: GET /v1/me: 503 the upstream broke the wire contract; try later"])
        #expect(report.outcome == .incomplete)
        #expect(scripted.connections == 2)
    }

    @Test(
        "a broken contract ends the pass as such whatever its words",
        arguments: [
            SyncError.contract("unexpected status 302 for GET /v1/me"),
            .historyDiffers(at: 6, "the store holds another message there"),
        ])
    func contractOutcome(_ error: SyncError) {
        var report = SyncEngine.Report()
        report.record(error, in: try? ConversationID("ab"))
        #expect(report.outcome == .contractBroken)
        #expect(report.problems == ["ab: \(error)"])
    }

    /// A report's counts, and whether a problem stopped part of the pass.
    struct SummaryCase: Sendable, CustomTestStringConvertible {
        var newMessages = 0, sent = 0, failed = 0, stillPending = 0, conversations = 2
        var problem = false
        var expected: String
        var testDescription: String { expected }
    }

    @Test(
        "the summary says synced only for a pass no problem stopped; otherwise what was really done, or not synced",
        arguments: [
            SummaryCase(newMessages: 7, expected: "synced 2 conversations, 7 new messages, 0 sent"),
            SummaryCase(sent: 1, failed: 1, expected: "synced 2 conversations, 0 new messages, 1 sent, 1 failed"),
            SummaryCase(conversations: 0, problem: true, expected: "not synced"),
            SummaryCase(stillPending: 1, conversations: 0, problem: true, expected: "not synced: 1 still pending"),
            SummaryCase(
                newMessages: 1, sent: 2, stillPending: 3, problem: true,
                expected: "partly synced: 1 new message, 2 sent; 3 still pending"),
            SummaryCase(failed: 1, problem: true, expected: "partly synced: 1 failed"),
        ])
    func summary(_ row: SummaryCase) {
        var report = SyncEngine.Report()
        report.conversations = row.conversations
        report.newMessages = row.newMessages
        report.sent = row.sent
        report.failed = Array(repeating: "ab: rejected", count: row.failed)
        report.stillPending = row.stillPending
        if row.problem { report.record(SyncError.transport(TransportError(.unreachable, "server unreachable"))) }
        #expect(report.summary == row.expected)
    }

    @Test("a failed system call on the store ends the pass as a store failure (exit 74), with the store's words")
    func storeFailureOutcome() {
        let error = StoreError.system(
            SystemError(operation: "fsync", path: "/s/conversations/ab/messages", errno: .noSpace))
        var report = SyncEngine.Report()
        report.record(error, in: try? ConversationID("ab"))
        #expect(report.outcome == .storeFailed)
        #expect(
            report.problems == [
                "ab: fsync /s/conversations/ab/messages: No space left on device; the disk is full: free some space, then run the command again"
            ])
    }
}
