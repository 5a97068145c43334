import ChatDomain
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// A store with conversation c1 (alice and bob) and `count` messages, alice's store, written by
/// a ``StoreWriter`` the test keeps (as a sync worker would).
struct LiveFixture {
    let scratch: ScratchDirectory
    let store: Store
    let writer: StoreWriter
    let c1: ConversationID
    let alice: UserID
    let bob: UserID

    init(messages count: Int = 3) throws {
        scratch = try ScratchDirectory()
        alice = try UserID("alice")
        bob = try UserID("bob")
        c1 = try ConversationID("c1")
        store = try Store.create(at: scratch.path + "/store", manifest: Manifest(userID: alice))
        writer = try StoreWriter(store: store)
        try writer.saveInfo(ConversationInfo(title: "Test", members: [alice, bob]), for: c1)
        if count > 0 { try writer.save((1...count).map { message($0) }, in: c1) }
    }

    func message(_ sequence: Int, id: ClientMessageID = .random(), from sender: UserID? = nil) -> Message {
        Message(
            sequence: sequence, clientMessageID: id, senderID: sender ?? (sequence % 2 == 0 ? alice : bob),
            text: "message \(sequence)", sentAt: "2026-11-29T10:00:00.000Z")
    }
}

/// Reads a stream into a collector until cancelled.
func collect<Value: Sendable>(_ stream: AsyncStream<Value>) -> (Collector<Value>, Task<Void, Never>) {
    let collector = Collector<Value>()
    let task = Task {
        for await value in stream { collector.append(value) }
    }
    return (collector, task)
}

extension LiveStore {
    @Suite(.ownThreads) struct StoreObserverTests {
        @Test("messages(in:) replays the current rows at once")
        func replaysCurrentValue() async throws {
            let fixture = try LiveFixture(messages: 3)
            let (rows, task) = collect(try StoreObserver(store: fixture.store).messages(in: fixture.c1))
            defer { task.cancel() }
            #expect(await rows.wait { !$0.isEmpty })
            #expect(rows.all.first?.map(\.sequence) == [1, 2, 3])
        }

        @Test(
            "a queued message shows as pending, then once, sequenced, after the worker stores it and removes its outbox file"
        )
        func pendingThenAccepted() async throws {
            let fixture = try LiveFixture(messages: 3)
            let (rows, task) = collect(try StoreObserver(store: fixture.store).messages(in: fixture.c1))
            defer { task.cancel() }
            #expect(await rows.wait { !$0.isEmpty })
            let conversation = fixture.store.conversation(fixture.c1)
            let entry = try Outbox(conversation).enqueue("hello")
            #expect(await rows.wait { $0.last?.last?.status == .pending })
            #expect(rows.all.last?.last?.clientMessageID == entry.clientMessageID)
            try fixture.writer.save(
                [fixture.message(4, id: entry.clientMessageID, from: fixture.alice)], in: fixture.c1)
            try DurableFile.remove(
                OutboxFile.fileName(ordinal: entry.ordinal, id: entry.clientMessageID), in: conversation.outboxDirectory
            )
            #expect(await rows.wait { $0.last?.last?.sequence == 4 && $0.last?.count == 4 })
            #expect(rows.all.last?.filter { $0.clientMessageID == entry.clientMessageID }.count == 1)
        }

        @Test("replacing positions.json moves a tick where the row stands")
        func tickMoves() async throws {
            let fixture = try LiveFixture(messages: 4)
            try fixture.writer.mergePositions(
                Positions([fixture.bob: MemberPosition(deliveredUpTo: 4, readUpTo: 0)]), in: fixture.c1)
            let (rows, task) = collect(try StoreObserver(store: fixture.store).messages(in: fixture.c1))
            defer { task.cancel() }
            #expect(await rows.wait { $0.first?.last?.status == .outgoing(.delivered) })
            try fixture.writer.mergePositions(
                Positions([fixture.bob: MemberPosition(deliveredUpTo: 4, readUpTo: 4)]), in: fixture.c1)
            #expect(await rows.wait { $0.last?.last?.status == .outgoing(.read) })
            #expect(rows.all.last?.map(\.sequence) == [1, 2, 3, 4])
        }

        @Test("the state carries pending and failed counts, history and the sync worker's process ID")
        func stateStatus() async throws {
            let fixture = try LiveFixture(messages: 120)
            let (states, task) = collect(try StoreObserver(store: fixture.store).states(in: fixture.c1, limit: 50))
            defer { task.cancel() }
            #expect(await states.wait { !$0.isEmpty })
            let first = try #require(states.all.first)
            #expect(first.rows.count == 50)
            #expect(first.rows.first?.sequence == 71)
            #expect(first.hasOlder)
            #expect(first.syncWorker == getpid(), "this test's StoreWriter holds the lock")
            #expect(!first.positionsLoaded)
            try Outbox(fixture.store.conversation(fixture.c1)).enqueue("one")
            #expect(await states.wait { $0.last?.pending == 1 })
        }

        @Test("changes(in:) names new sequences, queued and delivered IDs, in order")
        func namedChanges() async throws {
            let fixture = try LiveFixture(messages: 3)
            let (changes, task) = collect(try StoreObserver(store: fixture.store).changes(in: fixture.c1))
            defer { task.cancel() }
            // The stream says nothing about what was there, and a file queued before the watch is up
            // is part of that: queue until one is reported (the first, unless the machine is slow).
            let conversation = fixture.store.conversation(fixture.c1)
            var reported: OutboxEntry?
            for _ in 0..<20 where reported == nil {
                let candidate = try Outbox(conversation).enqueue("hi")
                if await changes.wait(timeout: 1, until: { $0.contains(.outboxAdded(fixture.c1, candidate)) }) {
                    reported = candidate
                }
            }
            let entry = try #require(reported)
            let stored = fixture.message(4, id: entry.clientMessageID, from: fixture.alice)
            try fixture.writer.save([stored, fixture.message(5)], in: fixture.c1)
            try DurableFile.remove(
                OutboxFile.fileName(ordinal: entry.ordinal, id: entry.clientMessageID), in: conversation.outboxDirectory
            )
            #expect(await changes.wait { $0.contains(.outboxRemoved(fixture.c1, entry.clientMessageID)) })
            let added = changes.all.compactMap { change -> Int? in
                if case .messageAdded(_, let message) = change { return message.sequence }
                return nil
            }
            #expect(added == [4, 5])
        }

        @Test("the store-wide summaries follow a conversation that appears and a message that arrives")
        func summaries() async throws {
            let fixture = try LiveFixture(messages: 3)
            let (lists, task) = collect(try StoreObserver(store: fixture.store).summaries())
            defer { task.cancel() }
            #expect(await lists.wait { $0.last?.conversations.map(\.id.rawValue) == ["c1"] })
            let c2 = try ConversationID("c2")
            try fixture.writer.saveInfo(
                ConversationInfo(title: "Second", members: [fixture.alice, fixture.bob]), for: c2)
            try fixture.writer.save([fixture.message(1)], in: c2)
            #expect(await lists.wait { $0.last?.conversations.first(where: { $0.id == c2 })?.last?.sequence == 1 })
            #expect(lists.all.allSatisfy { $0.polling == nil }, "inotify watched everything")
        }

        @Test("cancelling the caller's task ends the stream and stops its watcher")
        func cancellationStopsWatcher() async throws {
            let fixture = try LiveFixture(messages: 1)
            let root = fixture.store.conversation(fixture.c1).directory
            #expect(DirectoryWatcher.openWatchers(root: root) == 0)
            let (rows, task) = collect(try StoreObserver(store: fixture.store).messages(in: fixture.c1))
            #expect(await rows.wait { !$0.isEmpty })
            #expect(DirectoryWatcher.openWatchers(root: root) == 1)
            task.cancel()
            await task.value
            let stopped = await Collector<Int>().wait { _ in DirectoryWatcher.openWatchers(root: root) == 0 }
            #expect(stopped)
        }

        @Test("a conversation that does not exist is an error naming it, not an empty stream")
        func unknownConversation() throws {
            let fixture = try LiveFixture(messages: 0)
            #expect(throws: StoreError.self) {
                try StoreObserver(store: fixture.store).messages(in: try ConversationID("nope"))
            }
        }

        // MARK: The kernel's inotify limits

        /// An observer whose watchers poll every 100 ms once refused.
        func observer(_ fixture: LiveFixture) -> StoreObserver {
            var observer = StoreObserver(store: fixture.store)
            observer.pollInterval = 100
            return observer
        }

        @Test(
            "with only the conversation's directory watchable, states(in:) still shows a queued message and says why it polls"
        )
        func statesUnderWatchLimit() async throws {
            let fixture = try LiveFixture(messages: 3)
            let conversation = fixture.store.conversation(fixture.c1)
            try DurableFile.makeDirectories(conversation.outboxDirectory)
            FaultInjection.limitInotify(under: conversation.directory, watches: 1)
            defer { FaultInjection.clearInotifyLimit(under: conversation.directory) }
            let (states, task) = collect(try observer(fixture).states(in: fixture.c1))
            defer { task.cancel() }
            #expect(await states.wait { !$0.isEmpty })
            #expect(states.all.first?.polling?.limit == .watches)
            try Outbox(conversation).enqueue("while polling")
            #expect(await states.wait { $0.last?.rows.last?.text == "while polling" })
            try fixture.writer.save([fixture.message(4)], in: fixture.c1)
            #expect(await states.wait { $0.last?.rows.contains { $0.sequence == 4 } == true })
            #expect(states.all.allSatisfy { $0.polling != nil })
        }

        @Test("changes(in:) says it polls once, first, then the changes it finds")
        func changesUnderWatchLimit() async throws {
            let fixture = try LiveFixture(messages: 3)
            let conversation = fixture.store.conversation(fixture.c1)
            try DurableFile.makeDirectories(conversation.outboxDirectory)
            FaultInjection.limitInotify(under: conversation.directory, watches: 1)
            defer { FaultInjection.clearInotifyLimit(under: conversation.directory) }
            let (changes, task) = collect(try observer(fixture).changes(in: fixture.c1))
            defer { task.cancel() }
            let entry = try Outbox(conversation).enqueue("hi")
            try fixture.writer.save([fixture.message(4)], in: fixture.c1)
            #expect(
                await changes.wait {
                    $0.contains(.outboxAdded(fixture.c1, entry))
                        && $0.contains {
                            if case .messageAdded(_, let message) = $0 { message.sequence == 4 } else { false }
                        }
                })
            guard case .polling(let reason)? = changes.all.first else {
                Issue.record("the first change is .polling: \(changes.all)")
                return
            }
            #expect(reason.path == conversation.directory + "/messages" || reason.path == conversation.outboxDirectory)
            #expect(changes.all.filter { if case .polling = $0 { true } else { false } }.count == 1)
        }

        @Test("summaries() with the store root refused a watch: the list still follows, and says why")
        func summariesUnderWatchLimit() async throws {
            let fixture = try LiveFixture(messages: 3)
            FaultInjection.limitInotify(under: fixture.store.root, watches: 0)
            defer { FaultInjection.clearInotifyLimit(under: fixture.store.root) }
            let (lists, task) = collect(try observer(fixture).summaries())
            defer { task.cancel() }
            #expect(await lists.wait { $0.last?.conversations.map(\.id.rawValue) == ["c1"] })
            #expect(lists.all.first?.polling?.path == fixture.store.root)
            let c2 = try ConversationID("c2")
            try fixture.writer.saveInfo(
                ConversationInfo(title: "Second", members: [fixture.alice, fixture.bob]), for: c2)
            try fixture.writer.save([fixture.message(1)], in: c2)
            #expect(await lists.wait { $0.last?.conversations.first(where: { $0.id == c2 })?.last?.sequence == 1 })
            #expect(lists.all.allSatisfy { $0.polling != nil })
        }
    }
}
