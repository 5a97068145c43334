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
    let ab = try! ConversationID("ab")
    let wire = ServerCapabilities(deliveredPositions: true, positionsOnRequest: true)
    /// Like Matrix: no delivered positions, positions only as live updates.
    let readOnly = ServerCapabilities(deliveredPositions: false, positionsOnRequest: false)

    func engine(_ store: Store, _ fake: FakeServer) throws -> SyncEngine {
        try SyncEngine(store: store, session: FakeSession(fake: fake), token: "alice-token", options: fastOptions)
    }

    @Test("one pass through the seam: the list, the history, the outbox oldest first, the read position")
    func onePass() async throws {
        let directory = try TemporaryDirectory()
        let fake = try FakeServer(capabilities: wire)
        try fake.append(["hello", "how are you?"], from: "bob")
        let alice = try clientStore("alice", in: directory)
        let engine = try engine(alice, fake)
        #expect(await engine.syncOnce().outcome == .complete)
        #expect(try storedMessages(alice, "ab").map(\.text) == ["hello", "how are you?"])
        #expect(try alice.conversation(ab).info()?.title == "Alice and Bob")

        let outbox = Outbox(alice.conversation(ab))
        let queued = try ["one", "two", "three"].map { try outbox.enqueue($0) }
        _ = try outbox.wantRead(upTo: 2)
        let report = await engine.syncOnce()
        #expect(report.outcome == .complete, "\(report)")
        #expect(report.sent == 3)
        #expect(fake.requests("deliver ") == queued.map { "deliver \($0.clientMessageID)" })
        #expect(fake.history.map(\.text) == ["hello", "how are you?", "one", "two", "three"])
        #expect(try storedMessages(alice, "ab") == fake.history)
        #expect(try alice.conversation(ab).outbox().isEmpty)
        #expect(fake.requests("read") == ["read 2"])
        #expect(try alice.conversation(ab).positions()?[try UserID("alice")].readUpTo == 2)
    }

    @Test("an answer lost after the server accepted: the retry carries the same ID, the message is there once")
    func lostAnswer() async throws {
        let directory = try TemporaryDirectory()
        let fake = try FakeServer(capabilities: wire)
        let alice = try clientStore("alice", in: directory)
        let engine = try engine(alice, fake)
        _ = await engine.syncOnce()
        let outbox = Outbox(alice.conversation(ab))
        let queued = try ["one", "two", "three"].map { try outbox.enqueue($0) }
        fake.script("two", .loseAnswer)

        let report = await engine.syncOnce()
        #expect(report.outcome == .complete, "\(report)")
        let ids = queued.map { "deliver \($0.clientMessageID)" }
        #expect(fake.requests("deliver ") == [ids[0], ids[1], ids[1], ids[2]])
        #expect(fake.history.map(\.text) == ["one", "two", "three"])
        #expect(fake.history.map(\.clientMessageID) == queued.map(\.clientMessageID))
        #expect(try storedMessages(alice, "ab") == fake.history)
        #expect(try alice.conversation(ab).outbox().isEmpty)
    }

    @Test("a rejected message fails alone: the messages after it are delivered")
    func rejection() async throws {
        let directory = try TemporaryDirectory()
        let fake = try FakeServer(capabilities: wire)
        let alice = try clientStore("alice", in: directory)
        let engine = try engine(alice, fake)
        _ = await engine.syncOnce()
        let outbox = Outbox(alice.conversation(ab))
        let queued = try ["one", "refused", "three"].map { try outbox.enqueue($0) }
        fake.script("refused", .reject)

        let report = await engine.syncOnce()
        #expect(report.outcome == .messageRejected)
        #expect(report.sent == 2)
        #expect(report.failed.count == 1)
        #expect(fake.history.map(\.text) == ["one", "three"])
        #expect(try storedMessages(alice, "ab").map(\.text) == ["one", "three"])
        let left = try alice.conversation(ab).outbox()
        #expect(left.map(\.clientMessageID) == [queued[1].clientMessageID])
        #expect(left.map(\.state) == [.failed])
        #expect(fake.requests("deliver ").count == 3)
    }

    @Test("accepted without a place: a catch-up stores it with its sequence, then its outbox file goes")
    func acceptedThenPlacedByCatchUp() async throws {
        let directory = try TemporaryDirectory()
        let fake = try FakeServer(capabilities: wire)
        let alice = try clientStore("alice", in: directory)
        let engine = try engine(alice, fake)
        _ = await engine.syncOnce()
        let outbox = Outbox(alice.conversation(ab))
        let queued = try ["one", "two"].map { try outbox.enqueue($0) }
        fake.script("one", .acceptUnplaced)

        let report = await engine.syncOnce()
        #expect(report.outcome == .complete, "\(report)")
        #expect(report.sent == 2)
        #expect(fake.requests("deliver ") == queued.map { "deliver \($0.clientMessageID)" })
        #expect(fake.history.map(\.clientMessageID) == queued.map(\.clientMessageID))
        #expect(try storedMessages(alice, "ab") == fake.history)
        #expect(try alice.conversation(ab).outbox().isEmpty)
    }

    @Test("accepted but placed only later: the outbox file stays, it is never delivered again, then stored")
    func acceptedPlacedLater() async throws {
        let directory = try TemporaryDirectory()
        let fake = try FakeServer(capabilities: wire)
        let alice = try clientStore("alice", in: directory)
        let engine = try engine(alice, fake)
        _ = await engine.syncOnce()
        let outbox = Outbox(alice.conversation(ab))
        let held = try outbox.enqueue("held")
        fake.script("held", .acceptAndHold)

        let first = await engine.syncOnce()
        #expect(first.sent == 1)
        #expect(first.outcome == .incomplete, "the pass says to sync again: \(first)")
        #expect(try alice.conversation(ab).outbox().map(\.clientMessageID) == [held.clientMessageID])
        #expect(try storedMessages(alice, "ab").isEmpty)

        let second = await engine.syncOnce()
        #expect(second.sent == 0)
        #expect(fake.requests("deliver ") == ["deliver \(held.clientMessageID)"])
        #expect(try alice.conversation(ab).outbox().map(\.clientMessageID) == [held.clientMessageID])

        fake.placeHeld()
        let third = await engine.syncOnce()
        #expect(third.outcome == .complete, "\(third)")
        #expect(fake.requests("deliver ") == ["deliver \(held.clientMessageID)"])
        #expect(try storedMessages(alice, "ab").map(\.clientMessageID) == [held.clientMessageID])
        #expect(try alice.conversation(ab).outbox().isEmpty)
    }

    @Test("a server without delivered positions: none is posted, none is stored, in a pass and live")
    func noDeliveredPositions() async throws {
        let directory = try TemporaryDirectory()
        let fake = try FakeServer(capabilities: readOnly)
        try fake.append(["hello", "there"], from: "bob")
        let alice = try clientStore("alice", in: directory)
        let engine = try engine(alice, fake)
        _ = await engine.syncOnce()
        let outbox = Outbox(alice.conversation(ab))
        try outbox.enqueue("mine")
        _ = try outbox.wantRead(upTo: 2)
        let report = await engine.syncOnce()
        #expect(report.outcome == .complete, "\(report)")
        #expect(fake.requests("read") == ["read 2"])

        let worker = Task { await engine.runLive(log: { _ in }) }
        defer { worker.cancel() }
        try await waitUntil("the live connection is open") { fake.isLive }
        let bob = try UserID("bob")
        fake.live([.event(.message(ab, FakeServer.message(4, .random(), bob, "live one")))])
        try await waitUntil("the live message is stored") { (try? storedMessages(alice, "ab").count) == 4 }
        worker.cancel()
        _ = await worker.value

        #expect(fake.requests("delivered").isEmpty, "\(fake.requests)")
        #expect(fake.requests("positions").isEmpty)
        // Reading implies having (docs/FORMAT.md), so a read position is the only floor a
        // delivered one gets; nothing claims more, and no message of mine shows delivered.
        let positions = try alice.conversation(ab).positions() ?? Positions()
        #expect(positions.members.values.allSatisfy { $0.deliveredUpTo == $0.readUpTo }, "\(positions)")
        #expect(positions[try UserID("alice")].readUpTo == 2)
        let members = fake.members
        let ticks = try storedMessages(alice, "ab").filter { $0.senderID == fake.me }.map {
            receiptState(sequence: $0.sequence, sender: $0.senderID, members: members, positions: positions)
        }
        #expect(!ticks.isEmpty && !ticks.contains(.delivered), "\(ticks)")
    }

    @Test("a server with delivered positions gets mine, in a pass and live")
    func deliveredPositions() async throws {
        let directory = try TemporaryDirectory()
        let fake = try FakeServer(capabilities: wire)
        try fake.append(["hello", "there"], from: "bob")
        let alice = try clientStore("alice", in: directory)
        let engine = try engine(alice, fake)
        _ = await engine.syncOnce()
        #expect(fake.requests("delivered") == ["delivered 2"])

        let worker = Task { await engine.runLive(log: { _ in }) }
        defer { worker.cancel() }
        try await waitUntil("the live connection is open") { fake.isLive }
        let bob = try UserID("bob")
        try fake.append(["live one"], from: "bob")
        fake.live([.event(.message(ab, FakeServer.message(3, fake.history[2].clientMessageID, bob, "live one")))])
        let alicePosition = { try alice.conversation(self.ab).positions()?[try UserID("alice")] }
        try await waitUntil("the delivered position the server confirmed is stored") {
            try alicePosition()?.deliveredUpTo == 3
        }
        worker.cancel()
        _ = await worker.value
        #expect(fake.requests("delivered") == ["delivered 2", "delivered 3"])
    }
}
