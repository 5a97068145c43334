import ChatDomain
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// Live bursts (SyncEngine+LiveSync.swift, LiveBatch.swift): many events on the socket at once are stored
/// exactly once, in order, with one write per touched segment instead of one per event. The
/// server's `live-hold` fault sends a socket's first events only once that many wait.
@Suite(.ownThreads) struct LiveBurstTests {
    /// Counts the segment files renamed into a `messages/` directory (one per durable write).
    final class SegmentRenames {
        private let fd: FileDescriptor
        private var buffer = [UInt8](repeating: 0, count: Inotify.bufferSize)
        private(set) var count = 0

        init(_ directory: String) throws {
            fd = try Inotify.open()
            _ = try Inotify.addWatch(fd, path: directory, mask: [.movedTo])
        }

        /// Takes what the kernel queued since the last call; the total so far.
        func drain() throws -> Int {
            while true {
                let read = try Inotify.read(fd, into: &buffer)
                guard read > 0 else { return count }
                let events = buffer.withUnsafeBytes {
                    InotifyEvent.parse(UnsafeRawBufferPointer(rebasing: $0[0..<read]))
                }
                count +=
                    events.filter {
                        $0.mask.contains(.movedTo) && $0.name.hasSuffix(".json") && !$0.name.hasPrefix(".")
                    }.count
            }
        }
    }

    /// alice's live worker, connected and caught up, with the conversation `ab` in her store.
    /// (Posting earlier races the catch-up: a message it fetches is delivered, and that receipt
    /// event takes a place in the held burst.)
    static func liveAlice(
        _ server: TestServer, in directory: TemporaryDirectory, runtime: RuntimeChannel? = nil,
        options: SyncEngine.Options = fastOptions
    ) async throws -> (Store, Task<Void, Never>) {
        let alice = try clientStore("alice", in: directory)
        let live =
            if let runtime {
                try SyncEngine(
                    store: alice, server: server.address, token: "alice-token", options: options, runtime: runtime)
            } else {
                try engine(alice, server, options: options)
            }
        let lines = LogLines()
        let task = Task { _ = await live.runLive(log: { line in lines.append(line) }) }
        try await waitUntil("alice is connected, caught up and knows ab") {
            try server.server.liveSocketCount(for: UserID("alice")) == 1
                && Sys.kind(of: alice.conversation(try ConversationID("ab")).messagesDirectory) == .directory
                && lines.lines.contains("caught up")
        }
        return (alice, task)
    }

    /// Waits until `ab` in `store` holds `count` messages, then: sequences 1…count, each once,
    /// the server's records byte for byte, and a store `check` finds clean.
    static func expectEveryMessageOnce(
        _ count: Int, in store: Store, from server: TestServer, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await waitUntil("alice holds all \(count) messages", sourceLocation: sourceLocation) {
            try storedMessages(store, "ab").count == count
        }
        let stored = try storedMessages(store, "ab")
        #expect(stored.map(\.sequence) == Array(1...count), sourceLocation: sourceLocation)
        #expect(stored == (try await server.messages("ab")), sourceLocation: sourceLocation)
        #expect(StoreChecker.check(root: store.root).errors.isEmpty, sourceLocation: sourceLocation)
    }

    @Test("a live message the store's history refuses does not keep the rest of its batch from the store")
    func refusedMessageInABatch() async throws {
        let directory = try TemporaryDirectory()
        let store = try TrustIntegrityTests.storeHolding(1...100, in: directory)
        let c1 = try ConversationID("c1")
        let engine = try SyncEngine(
            store: store, server: ServerAddress(host: "127.0.0.1", port: 9), token: "alice-token", options: fastOptions)
        let message = { (sequence: Int, id: String) in
            Message(
                sequence: sequence, clientMessageID: try ClientMessageID(id), senderID: try UserID("bob"),
                text: "m\(sequence)", sentAt: TrustIntegrityTests.sentAt)
        }
        var batch = LiveBatch()
        try await engine.apply(.message(c1, try message(101, UUID().uuidString)), batch: &batch)
        // The store holds this client ID at sequence 50: the whole batch is refused by that check.
        try await engine.apply(.message(c1, try message(102, TrustIntegrityTests.id(50))), batch: &batch)
        try await engine.apply(.message(c1, try message(103, UUID().uuidString)), batch: &batch)
        #expect(try storedMessages(store, "c1").count == 100)
        let failure = await engine.commit(&batch)
        #expect(failure is SyncError, "\(String(describing: failure))")
        #expect(try storedMessages(store, "c1").map(\.sequence) == Array(1...101) + [103])
    }

    @Test("a burst of 400 live events is stored once and in order, in far fewer segment writes than events")
    func burst() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer(faults: "live-hold=400")
        let (alice, task) = try await Self.liveAlice(server, in: directory)
        defer { task.cancel() }
        let renames = try SegmentRenames(alice.conversation(try ConversationID("ab")).messagesDirectory)
        try await CatchUpAndLiveTests().post(400, as: "bob", server: server)
        try await Self.expectEveryMessageOnce(400, in: alice, from: server)
        // One event per write would be 400 renames; four segments written a few times over is
        // what batching gives (the first event alone, then what queued meanwhile).
        let writes = try renames.drain()
        #expect(writes > 0 && writes < 100, "\(writes) segment writes for 400 live events")
        // The delivered position is posted once the burst is durable: bob sees ✓✓ on the last one.
        try await waitUntil("the server has alice's delivered position at 400") {
            try await APIClient(server: server.address, token: "bob-token").receipts(try ConversationID("ab"))[
                try UserID("alice")
            ].deliveredUpTo == 400
        }
    }

    @Test("bursts with dropped, duplicated and reordered events: every message once, in order, holes filled")
    func unreliableBursts() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer(faults: "live-hold=200,live-drop=0.1,live-dup=0.2,live-reorder=0.2,seed=11")
        let (alice, task) = try await Self.liveAlice(server, in: directory)
        defer { task.cancel() }
        try await CatchUpAndLiveTests().post(350, as: "bob", server: server)
        // Dropped events' messages come with the gap and idle catch-ups.
        try await Self.expectEveryMessageOnce(350, in: alice, from: server)
    }

    /// alice's live worker with a runtime channel in the test's directory, on a server that
    /// holds the first `hold` events.
    struct TypingSetup {
        let directory: TemporaryDirectory
        let server: TestServer
        let channel: RuntimeChannel
        let alice: Store
        let task: Task<Void, Never>
        let ab = try! ConversationID("ab")
        let bob = try! UserID("bob")

        init(hold: Int) async throws {
            directory = try TemporaryDirectory()
            server = try TestServer(faults: "live-hold=\(hold)")
            channel = RuntimeChannel(root: directory.path + "/run")
            // No idle catch-up while the test looks: its page repeats the newest stored message
            // (bob's), and a catch-up page ends its senders' typing too.
            var options = fastOptions
            options.idleCatchUp = .seconds(600)
            (alice, task) = try await LiveBurstTests.liveAlice(
                server, in: directory, runtime: channel, options: options)
        }
    }

    @Test("bob's messages in a burst end his typing signal, noted before the burst")
    func burstEndsTyping() async throws {
        let setup = try await TypingSetup(hold: 30)
        defer { setup.task.cancel() }
        try setup.channel.noteTyping(setup.ab, user: setup.bob, atMilliseconds: RuntimeChannelWorkerTests.now())
        #expect(setup.channel.typing(setup.ab).map(\.user) == [setup.bob])
        try await CatchUpAndLiveTests().post(30, as: "bob", server: setup.server)
        try await Self.expectEveryMessageOnce(30, in: setup.alice, from: setup.server)
        #expect(setup.channel.typing(setup.ab).isEmpty)
    }

    @Test("a typing event after bob's messages in the same burst stays noted: the batch's commit does not clear it")
    func typingAfterMessagesInABurst() async throws {
        // bob's 20 messages, then his typing: held, then sent back to back.
        let setup = try await TypingSetup(hold: 21)
        defer { setup.task.cancel() }
        let bobAPI = APIClient(server: setup.server.address, token: "bob-token")
        try await CatchUpAndLiveTests().post(20, as: "bob", server: setup.server)
        try await bobAPI.typing(setup.ab)
        try await Self.expectEveryMessageOnce(20, in: setup.alice, from: setup.server)
        try await waitUntil("alice's channel notes bob typing") {
            setup.channel.typing(setup.ab).map(\.user) == [setup.bob]
        }
        // Still there once the worker has nothing left to do (it would be gone were it cleared late).
        try await waitUntil("the server has alice's delivered position at 20") {
            try await bobAPI.receipts(setup.ab)[try UserID("alice")].deliveredUpTo == 20
        }
        #expect(setup.channel.typing(setup.ab).map(\.user) == [setup.bob])
    }

    @Test("a burst across two conversations and a read receipt: each conversation stored in order, the receipt applied")
    func burstAcrossConversations() async throws {
        let directory = try TemporaryDirectory()
        // bob's 60 in ab and 60 in group, then carol's read receipt in group.
        let server = try TestServer(faults: "live-hold=121")
        let (alice, task) = try await Self.liveAlice(server, in: directory)
        defer { task.cancel() }
        let posting = CatchUpAndLiveTests()
        try await posting.post(60, as: "bob", server: server)
        try await posting.post(60, as: "bob", to: "group", server: server)
        _ = try await APIClient(server: server.address, token: "carol-token").read(
            try ConversationID("group"), upTo: 60)
        try await waitUntil("alice holds both conversations' messages and carol's read position") {
            try storedMessages(alice, "ab").count == 60 && (try storedMessages(alice, "group").count == 60)
                && (try alice.conversation(try ConversationID("group")).positions()?[try UserID("carol")].readUpTo == 60)
        }
        #expect(try storedMessages(alice, "ab").map(\.sequence) == Array(1...60))
        let positions = try alice.conversation(try ConversationID("group")).positions()
        #expect(try storedMessages(alice, "group").count == 60, "\(positions.map { "\($0)" } ?? "no positions")")
        #expect(try alice.conversation(try ConversationID("group")).positions()?[try UserID("carol")].readUpTo == 60)
        #expect(try storedMessages(alice, "group").map(\.sequence) == Array(1...60))
    }
}
