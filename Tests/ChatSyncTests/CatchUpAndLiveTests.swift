import ChatDomain
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// Catch-up, history and the live connection against the reference server.
@Suite(.ownThreads) struct CatchUpAndLiveTests {
    let ab = try! ConversationID("ab")

    /// Posts `count` messages as `user` straight to the server.
    func post(_ count: Int, as user: String, to conversation: String = "ab", server: TestServer, prefix: String = "m")
        async throws
    {
        let api = APIClient(server: server.address, token: "\(user)-token")
        for index in 1...count {
            // The server's own faults may refuse a POST (503, 429): try again, a bounded number of
            // times, and never when nothing listens (that would spin forever on a stopped server).
            // Every attempt carries the same client ID: a POST the server stored but whose answer
            // came too late (a loaded machine) must not be stored again under a new ID.
            let id = ClientMessageID.random()
            var attempts = 0
            while true {
                do {
                    _ = try await api.post(
                        try ConversationID(conversation), clientMessageID: id, text: "\(prefix)\(index)")
                    break
                } catch let error as SyncError where error.isRetryable {
                    attempts += 1
                    if attempts >= 200 { throw error }
                    try await Task.sleep(for: .milliseconds(2))
                }
            }
        }
    }

    @Test("catch-up pages through everything after the newest stored message, in order")
    func catchUp() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer()
        try await post(1234, as: "bob", server: server)
        let alice = try clientStore("alice", in: directory)
        let report = try await pass(alice, server)
        #expect(report.outcome == .complete)
        #expect(report.newMessages == 1234)
        #expect(try storedMessages(alice, "ab").map(\.sequence) == Array(1...1234))
        try await post(10, as: "bob", server: server, prefix: "late")
        #expect(try await pass(alice, server).newMessages == 10)
        #expect(try storedMessages(alice, "ab") == (try await server.messages("ab")))
        // Delivered is posted up to the end of what is stored: bob sees ✓✓.
        let receipts = try await APIClient(server: server.address, token: "bob-token").receipts(ab)
        #expect(receipts[try UserID("alice")].deliveredUpTo == 1244)
    }

    @Test("history fetches older pages until the beginning; view then scrolls back offline")
    func history() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer()
        try await post(1200, as: "bob", server: server)
        let alice = try clientStore("alice", in: directory)
        // Start with only the newest page stored, as a device that joined late would.
        let newest = try await APIClient(server: server.address, token: "alice-token").messages(ab, .newest, limit: 100)
        try StoreWriter(store: alice).save(newest.items, in: ab)
        let history = try engine(alice, server)
        let reports = Lock<[SyncProgress]>([])
        await history.setProgress { progress in reports.withLock { $0.append(progress) } }
        let fetched = try await history.history(ab, pages: nil)
        #expect(fetched == 1100)
        // Each page says how many are stored and how many lie before them (down to sequence 1).
        #expect(
            reports.withLock { $0 }.map { [$0.fetched, $0.remaining ?? -1] } == [[500, 600], [1000, 100], [1100, 0]])
        #expect(try storedMessages(alice, "ab").map(\.sequence) == Array(1...1200))
    }

    @Test("a message from another user arrives live; reads and receipts move ticks on both sides")
    func liveMessageAndReceipts() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer()
        let alice = try clientStore("alice", in: directory)
        let bob = try clientStore("bob", in: directory)
        let aliceLive = try engine(alice, server)
        let bobLive = try engine(bob, server)
        let tasks = [
            Task { _ = await aliceLive.runLive(log: { _ in }) }, Task { _ = await bobLive.runLive(log: { _ in }) },
        ]
        defer { tasks.forEach { $0.cancel() } }
        try await waitUntil("both know the conversation") {
            alice.conversation(ab).exists && bob.conversation(ab).exists
        }
        try await waitUntil("both are connected") {
            try server.server.liveSocketCount(for: UserID("alice")) == 1
                && server.server.liveSocketCount(for: UserID("bob")) == 1
        }

        let sent = try Outbox(bob.conversation(ab)).enqueue("hello alice")
        try await waitUntil("alice's store holds bob's message") {
            try storedMessages(alice, "ab").map(\.clientMessageID) == [sent.clientMessageID]
        }
        try await waitUntil("bob's outbox is empty and his copy is stored") {
            try bob.conversation(ab).outbox().isEmpty && (try storedMessages(bob, "ab").count == 1)
        }
        try await waitUntil("bob sees ✓✓ delivered") {
            try bob.conversation(ab).snapshot(limit: 10).rows(me: bob.userID).last?.status == .outgoing(.delivered)
        }
        try Outbox(alice.conversation(ab)).wantRead(upTo: 1)
        try await waitUntil("bob sees ✓✓ read") {
            try bob.conversation(ab).snapshot(limit: 10).rows(me: bob.userID).last?.status == .outgoing(.read)
        }
    }

    @Test("a live socket closed by the server: reconnect, catch up, nothing missed")
    func reconnect() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer(faults: "live-close=300ms")
        let alice = try clientStore("alice", in: directory)
        var options = fastOptions
        options.backoff = Backoff(initial: .milliseconds(50), maximum: .milliseconds(100))
        let live = try engine(alice, server, options: options)
        let lines = LogLines()
        let task = Task { _ = await live.runLive(log: { line in lines.append(line) }) }
        defer { task.cancel() }
        let connections = { lines.lines.filter { $0.hasPrefix("connected to") }.count }
        try await waitUntil("alice knows the conversation") { alice.conversation(ab).exists }
        for round in 1...5 {
            let before = connections()
            try await post(20, as: "bob", server: server, prefix: "r\(round)-")
            // The next round goes to another connection: the server has closed this one and the
            // worker is back, so every round meets a reconnect and the catch-up after it.
            try await waitUntil("alice's worker reconnects after round \(round)") { connections() > before }
        }
        try await waitUntil("alice holds all 100 messages") { try storedMessages(alice, "ab").count == 100 }
        #expect(try storedMessages(alice, "ab") == (try await server.messages("ab")))
    }

    @Test("dropped, duplicated and reordered live events: stored once, in order, gaps filled")
    func unreliableEvents() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer(faults: "live-drop=0.2,live-dup=0.2,live-reorder=0.2,seed=5")
        let alice = try clientStore("alice", in: directory)
        let live = try engine(alice, server)
        let task = Task { _ = await live.runLive(log: { _ in }) }
        defer { task.cancel() }
        try await waitUntil("alice is connected") { server.server.liveSocketCount(for: try UserID("alice")) == 1 }
        try await post(200, as: "bob", server: server)
        try await waitUntil("alice holds all 200 messages") { try storedMessages(alice, "ab").count == 200 }
        let stored = try storedMessages(alice, "ab")
        #expect(stored.map(\.sequence) == Array(1...200))
        #expect(stored == (try await server.messages("ab")))
        #expect(StoreChecker.check(root: alice.root).errors.isEmpty)
    }

    @Test("a second live worker on the same store is refused with a clear message")
    func secondWorker() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer()
        let alice = try clientStore("alice", in: directory)
        let first = try engine(alice, server)
        do {
            _ = try engine(alice, server)
            Issue.record("a second engine got the lock")
        } catch let error as StoreError {
            #expect(error.description.contains("only one sync worker may run per store"))
        }
        withExtendedLifetime(first) {}
    }
}
