import ChatDomain
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// `Outbox.cancel` and the delivery claim it waits for (`OutboxClaim`).
@Suite(.ownThreads) struct OutboxCancelTests {
    /// A store with conversation c1 and one queued message.
    func queued(_ directory: TemporaryDirectory) throws -> (store: Store, writer: StoreWriter, entry: OutboxEntry) {
        let store = try makeStore(in: directory)
        let writer = try StoreWriter(store: store)
        try writer.saveInfo(ConversationInfo(title: "T", members: [alice, bob]), for: c1)
        let entry = try Outbox(store.conversation(c1)).enqueue("to be cancelled")
        return (store, writer, entry)
    }

    @Test("a pending message is removed and reported cancelled; the worker can no longer claim it")
    func cancelPending() throws {
        let directory = try TemporaryDirectory()
        let (store, _, entry) = try queued(directory)
        let conversation = store.conversation(c1)
        #expect(try Outbox(conversation).cancel(entry.clientMessageID) == .cancelled(entry))
        #expect(try conversation.outbox().isEmpty)
        #expect(OutboxClaim.take(entry, in: conversation) == nil)
    }

    @Test("a failed message is cancelled too")
    func cancelFailed() throws {
        let directory = try TemporaryDirectory()
        let (store, writer, entry) = try queued(directory)
        try writer.markFailed(entry.clientMessageID, reason: "no", in: c1)
        let outbox = Outbox(store.conversation(c1))
        #expect(try outbox.failed().map(\.clientMessageID) == [entry.clientMessageID])
        guard case .cancelled(let cancelled) = try outbox.cancel(entry.clientMessageID) else {
            Issue.record("not cancelled")
            return
        }
        #expect(cancelled.state == .failed && cancelled.error == "no")
        #expect(try outbox.failed().isEmpty)
    }

    @Test("an ID that is not queued is an error naming it; one already stored is already sent")
    func unknownAndSent() throws {
        let directory = try TemporaryDirectory()
        let (store, writer, entry) = try queued(directory)
        let outbox = Outbox(store.conversation(c1))
        let unknown = ClientMessageID.random()
        do throws(StoreError) {
            _ = try outbox.cancel(unknown)
            Issue.record("an unknown ID was cancelled")
        } catch {
            guard case .unknownOutboxMessage(let conversation, let id) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(conversation == c1 && id == unknown)
            #expect(error.exitCode == 66)
            #expect(error.description.contains(unknown.rawValue))
        }
        let sent = Message(
            sequence: 1, clientMessageID: entry.clientMessageID, senderID: alice, text: entry.text,
            sentAt: "2026-11-29T10:00:00.000Z")
        try writer.accept([sent], in: c1)
        #expect(try outbox.cancel(entry.clientMessageID) == .alreadySent(sequence: 1))
    }

    @Test("stored but its outbox file still there (a worker stopped between the two): already sent, the file stays")
    func storedWithFile() throws {
        let directory = try TemporaryDirectory()
        let (store, writer, entry) = try queued(directory)
        try writer.save(
            [
                Message(
                    sequence: 4, clientMessageID: entry.clientMessageID, senderID: alice, text: entry.text,
                    sentAt: "2026-11-29T10:00:00.000Z")
            ], in: c1)
        #expect(try Outbox(store.conversation(c1)).cancel(entry.clientMessageID) == .alreadySent(sequence: 4))
        #expect(try store.conversation(c1).outbox().count == 1)
    }

    enum Attempt: String, CaseIterable { case accepted, failedTemporarily }

    @Test("cancel waits for a delivery attempt in flight, then tells the truth", arguments: Attempt.allCases)
    func waitsForAttempt(_ attempt: Attempt) async throws {
        let directory = try TemporaryDirectory()
        let (store, writer, entry) = try queued(directory)
        let conversation = store.conversation(c1)
        let claim = try #require(OutboxClaim.take(entry, in: conversation))
        #expect(OutboxClaim.take(entry, in: conversation) == nil, "a second claim of the same file")
        let waiting = DispatchSemaphore(value: 0)
        let result = Lock<Result<Outbox.CancelOutcome, StoreError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            do throws(StoreError) {
                let outcome = try Outbox(conversation).cancel(entry.clientMessageID) { waiting.signal() }
                result.withLock { $0 = .success(outcome) }
            } catch {
                result.withLock { $0 = .failure(error) }
            }
            done.signal()
        }
        #expect(waiting.wait(timeout: .now() + 60) == .success, "cancel never said it waits")
        #expect(result.withLock { $0 } == nil, "cancel answered while the attempt was in flight")
        switch attempt {
        case .accepted:
            try writer.accept(
                [
                    Message(
                        sequence: 1, clientMessageID: entry.clientMessageID, senderID: alice, text: entry.text,
                        sentAt: "2026-11-29T10:00:00.000Z")
                ], in: c1)
        case .failedTemporarily:
            try writer.recordAttempt(entry.clientMessageID, in: c1)
        }
        claim.release()
        #expect(done.wait(timeout: .now() + 60) == .success)
        switch (attempt, result.withLock { $0 }) {
        case (.accepted, .success(.alreadySent(sequence: 1))?):
            #expect(try conversation.outbox().isEmpty)
        case (.failedTemporarily, .success(.cancelled(let cancelled))?):
            #expect(cancelled.attempts == 1)
            #expect(try conversation.outbox().isEmpty)
        case (_, let other):
            Issue.record("unexpected outcome \(String(describing: other))")
        }
    }
}
