import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// The outbox rules against the reference server: save first, deliver later, exactly once,
/// in order, the same ID on every attempt.
@Suite(.ownThreads) struct OutboxDeliveryTests {
    let ab = try! ConversationID("ab")

    @Test("sent offline, then synced: every message accepted once, in queue order, outbox empty")
    func offlineThenSync() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer()
        let alice = try clientStore("alice", in: directory)
        // Learn the conversation first, then go offline.
        #expect(try await pass(alice, server).outcome == .complete)
        server.stop()
        let outbox = Outbox(alice.conversation(ab))
        let queued = try ["one", "two", "three"].map { try outbox.enqueue($0) }
        let offline = try await pass(alice, server)
        #expect(offline.outcome == .incomplete)
        #expect(offline.stillPending == 3)
        #expect(try alice.conversation(ab).outbox().map(\.state) == [.pending, .pending, .pending])

        try server.restart()
        let report = try await pass(alice, server)
        #expect(report.outcome == .complete, "\(report)")
        #expect(report.sent == 3)
        let onServer = try await server.messages("ab")
        #expect(onServer.map(\.text) == ["one", "two", "three"])
        #expect(onServer.map(\.clientMessageID) == queued.map(\.clientMessageID))
        #expect(try storedMessages(alice, "ab") == onServer)
        #expect(try alice.conversation(ab).outbox().isEmpty)
    }

    @Test("replies dropped after commit: retried with the same ID, each message on the server once")
    func droppedReplies() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer(faults: "drop-reply=0.5,seed=3")
        let alice = try clientStore("alice", in: directory)
        _ = try await pass(alice, server)
        let outbox = Outbox(alice.conversation(ab))
        for index in 1...20 { try outbox.enqueue("message \(index)") }
        let report = try await pass(alice, server)
        #expect(report.outcome == .complete, "\(report)")
        let onServer = try await server.messages("ab")
        #expect(onServer.map(\.text) == (1...20).map { "message \($0)" })
        #expect(Set(onServer.map(\.clientMessageID)).count == 20)
        #expect(try storedMessages(alice, "ab") == onServer)
    }

    @Test("5xx and 429 are temporary: backed off, then delivered")
    func temporaryFailures() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer(faults: "error5xx=0.3,rate-limit=0.2:0,seed=11")
        let alice = try clientStore("alice", in: directory)
        var report = try await pass(alice, server)
        for index in 1...15 { try Outbox(alice.conversation(ab)).enqueue("m\(index)") }
        report = try await pass(alice, server)
        #expect(report.outcome == .complete, "\(report)")
        #expect(try await server.messages("ab").map(\.text) == (1...15).map { "m\($0)" })
    }

    @Test("a rejected message fails alone, with the reason; the queue moves on; retry keeps its ID and sends it last")
    func rejectedThenRetried() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer(faults: "reject-text=forbidden")
        let alice = try clientStore("alice", in: directory)
        _ = try await pass(alice, server)
        let outbox = Outbox(alice.conversation(ab))
        try outbox.enqueue("first")
        let bad = try outbox.enqueue("a forbidden word")
        try outbox.enqueue("third")
        let report = try await pass(alice, server)
        #expect(report.outcome == .messageRejected)
        #expect(report.failed.count == 1 && report.sent == 2)
        #expect(try await server.messages("ab").map(\.text) == ["first", "third"])
        let failed = try alice.conversation(ab).outbox()
        #expect(failed.map(\.clientMessageID) == [bad.clientMessageID])
        #expect(failed.first?.state == .failed)
        #expect(failed.first?.error?.contains("which this server refuses") == true)

        // The user retries after the server changed its mind: same ID, after the newer ones.
        try server.restart()
        try outbox.enqueue("fourth")
        try outbox.retry(bad.clientMessageID)
        let again = try await pass(alice, server)
        #expect(again.outcome == .complete, "\(again)")
        let onServer = try await server.messages("ab")
        #expect(onServer.map(\.text) == ["first", "third", "fourth", "a forbidden word"])
        #expect(onServer.last?.clientMessageID == bad.clientMessageID)
    }

    @Test("Retry-After is waited out before the same message is sent again")
    func retryAfterRespected() async throws {
        let attempts = AttemptLog()
        let canned = try CannedServer { method, path in
            switch (method, path) {
            case ("GET", "/v1/me"): return .json(200, #"{"userId":"alice"}"#)
            case ("GET", "/v1/conversations"):
                return .json(200, #"{"items":[{"id":"ab","title":"t","members":["alice","bob"],"lastSequence":0}]}"#)
            case ("GET", _) where path.contains("/messages"): return .json(200, #"{"items":[],"hasMore":false}"#)
            case ("GET", _) where path.contains("/receipts"): return .json(200, #"{"members":[]}"#)
            case ("POST", "/v1/conversations/ab/messages"):
                if attempts.record() == 1 {
                    return CannedServer.Reply(
                        status: 429, body: Array(#"{"error":"slow down"}"#.utf8), headers: ["Retry-After": "2"])
                }
                return .json(
                    201,
                    #"{"clientMessageId":"\#(attempts.id)","senderId":"alice","text":"hello","sequence":1,"sentAt":"2026-11-29T10:00:00.000Z"}"#
                )
            default: return .json(404, #"{"error":"no"}"#)
            }
        }
        defer { canned.stop() }
        let directory = try TemporaryDirectory()
        let alice = try clientStore("alice", in: directory)
        try StoreWriter(store: alice).saveInfo(ConversationInfo(title: "t", members: []), for: ab)
        let entry = try Outbox(alice.conversation(ab)).enqueue("hello")
        attempts.id = entry.clientMessageID.rawValue
        var options = fastOptions
        options.longestPassWait = .seconds(5)
        let report = await
            (try SyncEngine(store: alice, server: try ServerAddress(canned.url), token: "t", options: options))
            .syncOnce()
        #expect(report.outcome == .complete, "\(report)")
        let times = attempts.times
        #expect(times.count == 2)
        if times.count == 2 { #expect(times[1] - times[0] >= .seconds(2)) }
    }
}

/// When each POST arrived (for the Retry-After test).
final class AttemptLog: @unchecked Sendable {
    private let lock = NSLock()
    private var log: [ContinuousClock.Instant] = []
    var id = ""

    func record() -> Int {
        lock.withLock {
            log.append(.now)
            return log.count
        }
    }

    var times: [ContinuousClock.Instant] { lock.withLock { log } }
}
