import ChatDomain
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// A delivery attempt that fails for now is counted in its outbox file; when even that write
/// fails, the worker's report says so beside the server's answer (a failing disk is never
/// silent), and the message stays pending.
@Suite(.ownThreads) struct OutboxAttemptTests {
    @Test(
        "a delivery that fails for now while the outbox cannot be written says both: the server's answer and the attempt left uncounted"
    )
    func uncountedAttemptIsSaid() async throws {
        let server = try CannedServer { method, path in
            if method == "POST", path.contains("/messages") { return .json(503, #"{"error":"try later"}"#) }
            return .json(404, #"{"error":"no"}"#)
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let store = try clientStore("alice", in: directory)
        let ab = try ConversationID("ab")
        try StoreWriter(store: store).saveInfo(
            ConversationInfo(title: "AB", members: [try UserID("alice"), try UserID("bob")]), for: ab)
        let hi = try Outbox(store.conversation(ab)).enqueue("hi")
        let outbox = store.conversation(ab).outboxDirectory
        FaultInjection.inject([.open], under: outbox, failAt: 1, persistent: true, errno: .noSpace)
        defer { _ = FaultInjection.clear(outbox) }
        let engine = try SyncEngine(
            store: store, server: try ServerAddress(server.url), token: "alice-token", options: fastOptions)

        let outcome = try await engine.drainOutbox(ab, patient: false)
        let problem = try #require(outcome.problem)
        #expect(problem.contains("try later"), "\(problem)")
        #expect(problem.contains("counting the attempt failed"), "\(problem)")
        #expect(problem.contains("No space left on device"), "\(problem)")
        #expect(outcome.stillPending == 1)
        #expect(try store.conversation(ab).outbox().map(\.clientMessageID) == [hi.clientMessageID])
    }
}
