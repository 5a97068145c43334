import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// The engine's rules driven through its one seam (``ServerSession``) by a server kept in
/// memory: every request the engine makes is the fake's to answer, and nothing listens where
/// the fake says the server is, so what the store ends with came through the seam.
@Suite(.ownThreads) struct ServerSessionTests {
    static let wire = ServerCapabilities(deliveredPositions: true, positionsOnRequest: true)
    /// A protocol without delivered positions, whose positions come only as live updates.
    static let readOnly = ServerCapabilities(deliveredPositions: false, positionsOnRequest: false)

    /// Alice's fresh store and its engine on a fake server whose history holds `history` from
    /// Bob, after a first pass (the conversation is known, its history stored).
    struct Device {
        let directory: TemporaryDirectory
        let fake: FakeServer
        let store: Store
        let engine: SyncEngine
        let first: SyncEngine.Report
        let ab = try! ConversationID("ab")

        init(_ capabilities: ServerCapabilities, history: [String] = []) async throws {
            directory = try TemporaryDirectory()
            fake = try FakeServer(capabilities: capabilities)
            try fake.append(history, from: "bob")
            store = try clientStore("alice", in: directory)
            engine = try SyncEngine(
                store: store, session: FakeSession(fake: fake), token: "alice-token", options: fastOptions)
            first = await engine.syncOnce()
        }

        /// Queues `texts` in the conversation's outbox, in order.
        @discardableResult
        func send(_ texts: String...) throws -> [ClientMessageID] {
            let outbox = Outbox(store.conversation(ab))
            return try texts.map { try outbox.enqueue($0).clientMessageID }
        }

        var stored: [Message] { get throws { try storedMessages(store, "ab") } }
        var outbox: [OutboxEntry] { get throws { try store.conversation(ab).outbox() } }
        var positions: Positions { get throws { try store.conversation(ab).positions() ?? Positions() } }
        /// The client message IDs the fake was asked to deliver, in order, repeats included.
        var deliveries: [String] { fake.requests("deliver ").map { String($0.dropFirst("deliver ".count)) } }
    }

    @Test("one pass through the seam: the list, the history, the outbox oldest first, the read position")
    func onePass() async throws {
        let device = try await Device(Self.wire, history: ["hello", "how are you?"])
        #expect(device.first.outcome == .complete)
        #expect(try device.stored.map(\.text) == ["hello", "how are you?"])
        #expect(try device.store.conversation(device.ab).info()?.title == "Alice and Bob")

        let queued = try device.send("one", "two", "three")
        try Outbox(device.store.conversation(device.ab)).wantRead(upTo: 2)
        let report = await device.engine.syncOnce()
        #expect(report.outcome == .complete, "\(report)")
        #expect(report.sent == 3)
        #expect(device.deliveries == queued.map(\.rawValue))
        #expect(device.fake.history.map(\.text) == ["hello", "how are you?", "one", "two", "three"])
        #expect(try device.stored == device.fake.history)
        #expect(try device.outbox.isEmpty)
        #expect(device.fake.requests("read") == ["read 2"])
        #expect(try device.positions[try UserID("alice")].readUpTo == 2)
    }

    @Test("an answer lost after the server accepted: the retry carries the same ID, the message is there once")
    func lostAnswer() async throws {
        let device = try await Device(Self.wire)
        let queued = try device.send("one", "two", "three")
        device.fake.script("two", .loseAnswer)

        let report = await device.engine.syncOnce()
        #expect(report.outcome == .complete, "\(report)")
        #expect(device.deliveries == [queued[0], queued[1], queued[1], queued[2]].map(\.rawValue))
        #expect(device.fake.history.map(\.text) == ["one", "two", "three"])
        #expect(device.fake.history.map(\.clientMessageID) == queued)
        #expect(try device.stored == device.fake.history)
        #expect(try device.outbox.isEmpty)
    }

    @Test("a rejected message fails alone: the messages after it are delivered")
    func rejection() async throws {
        let device = try await Device(Self.wire)
        let queued = try device.send("one", "refused", "three")
        device.fake.script("refused", .reject)

        let report = await device.engine.syncOnce()
        #expect(report.outcome == .messageRejected)
        #expect(report.sent == 2)
        #expect(report.failed.count == 1)
        #expect(device.deliveries == queued.map(\.rawValue))
        #expect(device.fake.history.map(\.text) == ["one", "three"])
        #expect(try device.stored.map(\.text) == ["one", "three"])
        #expect(try device.outbox.map(\.clientMessageID) == [queued[1]])
        #expect(try device.outbox.map(\.state) == [.failed])
    }

    @Test("accepted without a place: a catch-up stores it with its sequence, then its outbox file goes")
    func acceptedThenPlacedByCatchUp() async throws {
        let device = try await Device(Self.wire)
        let queued = try device.send("one", "two")
        device.fake.script("one", .acceptUnplaced)

        let report = await device.engine.syncOnce()
        #expect(report.outcome == .complete, "\(report)")
        #expect(report.sent == 2)
        #expect(device.deliveries == queued.map(\.rawValue))
        #expect(device.fake.history.map(\.clientMessageID) == queued)
        #expect(try device.stored == device.fake.history)
        #expect(try device.outbox.isEmpty)
    }

    @Test("accepted but placed only later: the outbox file stays, it is never delivered again, then stored")
    func acceptedPlacedLater() async throws {
        let device = try await Device(Self.wire)
        let held = try device.send("held")
        device.fake.script("held", .acceptAndHold)

        let first = await device.engine.syncOnce()
        #expect(first.sent == 1)
        #expect(first.outcome == .incomplete, "the pass says to sync again: \(first)")
        #expect(try device.outbox.map(\.clientMessageID) == held)
        #expect(try device.stored.isEmpty)

        let second = await device.engine.syncOnce()
        #expect(second.sent == 0)
        #expect(device.deliveries == held.map(\.rawValue))
        #expect(try device.outbox.map(\.clientMessageID) == held)

        device.fake.placeHeld()
        let third = await device.engine.syncOnce()
        #expect(third.outcome == .complete, "\(third)")
        #expect(device.deliveries == held.map(\.rawValue))
        #expect(try device.stored.map(\.clientMessageID) == held)
        #expect(try device.outbox.isEmpty)
    }

    @Test("a server without delivered positions: none is posted, none is stored, in a pass and live")
    func noDeliveredPositions() async throws {
        let device = try await Device(Self.readOnly, history: ["hello", "there"])
        let fake = device.fake
        try device.send("mine")
        try Outbox(device.store.conversation(device.ab)).wantRead(upTo: 2)
        let report = await device.engine.syncOnce()
        #expect(report.outcome == .complete, "\(report)")
        #expect(fake.requests("read") == ["read 2"])

        let worker = try await device.live([FakeServer.message(4, .random(), try UserID("bob"), "live one")])
        defer { worker.cancel() }
        try await waitUntil("the live message is stored") { try device.stored.count == 4 }
        worker.cancel()
        _ = await worker.value

        #expect(fake.requests("delivered").isEmpty, "\(fake.requests)")
        #expect(fake.requests("positions").isEmpty)
        // Reading implies having (docs/FORMAT.md), so a read position is the only floor a
        // delivered one gets; nothing claims more, and no message of mine shows delivered.
        let positions = try device.positions
        #expect(positions.members.values.allSatisfy { $0.deliveredUpTo == $0.readUpTo }, "\(positions)")
        #expect(positions[try UserID("alice")].readUpTo == 2)
        let ticks = try device.stored.filter { $0.senderID == fake.me }.map {
            receiptState(sequence: $0.sequence, sender: $0.senderID, members: fake.members, positions: positions)
        }
        #expect(!ticks.isEmpty && !ticks.contains(.delivered), "\(ticks)")
    }

    @Test("a server with delivered positions gets mine, in a pass and live")
    func deliveredPositions() async throws {
        let device = try await Device(Self.wire, history: ["hello", "there"])
        #expect(device.fake.requests("delivered") == ["delivered 2"])

        try device.fake.append(["live one"], from: "bob")
        let worker = try await device.live([device.fake.history[2]])
        defer { worker.cancel() }
        try await waitUntil("the delivered position the server confirmed is stored") {
            try device.positions[try UserID("alice")].deliveredUpTo == 3
        }
        worker.cancel()
        _ = await worker.value
        #expect(device.fake.requests("delivered") == ["delivered 2", "delivered 3"])
    }
}

extension ServerSessionTests.Device {
    /// Starts the live worker, waits for its connection, and sends `messages` as live events.
    /// Returns the worker, for the test to cancel.
    func live(_ messages: [Message]) async throws -> Task<SyncError?, Never> {
        let engine = engine
        let worker = Task { await engine.runLive(log: { _ in }) }
        try await waitUntil("the live connection is open") { fake.isLive }
        fake.live(messages.map { .event(.message(ab, $0)) })
        return worker
    }
}
