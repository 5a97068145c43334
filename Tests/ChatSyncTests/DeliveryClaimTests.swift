import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// The worker's side of `chatdir cancel`: a message whose outbox file another process holds
/// (a cancel deciding) is not posted, and the ones after it still are.
@Suite(.ownThreads) struct DeliveryClaimTests {
    let ab = try! ConversationID("ab")

    @Test("a held message is left pending and never posted; the queue goes on; released, it is delivered")
    func heldMessageIsSkipped() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer()
        let alice = try clientStore("alice", in: directory)
        #expect(try await pass(alice, server).outcome == .complete)
        let outbox = Outbox(alice.conversation(ab))
        let held = try outbox.enqueue("held by a cancel")
        let next = try outbox.enqueue("after it")
        let claim = try #require(OutboxClaim.take(held, in: alice.conversation(ab)))

        let report = try await pass(alice, server)
        #expect(report.sent == 1, "\(report)")
        #expect(try await server.messages("ab").map(\.clientMessageID).contains(next.clientMessageID))
        #expect(!(try await server.messages("ab").map(\.clientMessageID).contains(held.clientMessageID)))
        #expect(try alice.conversation(ab).outbox().map(\.clientMessageID) == [held.clientMessageID])

        claim.release()
        #expect(try await pass(alice, server).sent == 1)
        #expect(try await server.messages("ab").filter { $0.clientMessageID == held.clientMessageID }.count == 1)
        #expect(try alice.conversation(ab).outbox().isEmpty)
    }

    @Test("the worker's figures: caught-up times, send-to-sent per delivery, stopped at the end")
    func figures() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer()
        let alice = try clientStore("alice", in: directory)
        let worker = try engine(alice, server)
        let metrics = WorkerMetrics(storeRoot: alice.root, mode: .pass)
        await worker.setMetrics(metrics)
        _ = await worker.syncOnce()
        try Outbox(alice.conversation(ab)).enqueue("measured")
        _ = await worker.syncOnce()
        metrics.stopped()
        let status = try #require(try SyncStatusFile.read(storeRoot: alice.root)?.get())
        #expect(status.pid == getpid())
        #expect(status.mode == .pass && status.connection == .stopped)
        #expect(status.caughtUp[ab] != nil)
        #expect(status.sendToSent.count == 1)
        #expect(status.sendToSent.allSatisfy { $0 >= 0 && $0 < 600_000 })
    }
}
