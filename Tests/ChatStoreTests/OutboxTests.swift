import ChatDomain
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

@Suite(.ownThreads) struct OutboxTests {
    @Test("queued messages are durable files whose names sort as the queue")
    func enqueue() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        try StoreWriter(store: store).saveInfo(ConversationInfo(title: "T", members: [alice, bob]), for: c1)
        let outbox = Outbox(store.conversation(c1))
        let first = try outbox.enqueue("one")
        let second = try outbox.enqueue("two")
        let entries = try store.conversation(c1).outbox()
        #expect(entries.map(\.clientMessageID) == [first.clientMessageID, second.clientMessageID])
        #expect(entries.allSatisfy { $0.state == .pending && $0.attempts == 0 })
        let names = try Sys.listDirectory(store.conversation(c1).outboxDirectory).sorted()
        #expect(
            names == [
                OutboxFile.fileName(ordinal: first.ordinal, id: first.clientMessageID),
                OutboxFile.fileName(ordinal: second.ordinal, id: second.clientMessageID),
            ])
        #expect(names.allSatisfy { $0.count == 20 + 1 + 36 + 5 })
    }

    @Test(
        "an outbox file name is the ordinal in 20 digits, a dash, the ID and .json, and parses back",
        arguments: [
            UInt64(0), 1, 9, 10, 1_764_417_600_000_000_000, 9_999_999_999_999_999_999, UInt64.max,
        ])
    func fileName(ordinal: UInt64) throws {
        let id = ClientMessageID.random()
        let name = OutboxFile.fileName(ordinal: ordinal, id: id)
        let digits = String(ordinal)
        #expect(name == String(repeating: "0", count: 20 - digits.count) + digits + "-" + id.rawValue + ".json")
        #expect(name.utf8.count == OutboxFile.nameLength)
        let parsed = try #require(OutboxFile.parseName(name))
        #expect(parsed.ordinal == ordinal && parsed.id == id)
    }

    @Test(
        "text the server would refuse is refused before anything is written",
        arguments: ["", String(repeating: "a", count: 4097)])
    func invalidText(_ text: String) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        #expect(throws: StoreError.self) { try Outbox(store.conversation(c1)).enqueue(text) }
        #expect(Sys.kind(of: store.conversation(c1).outboxDirectory) == nil)
    }

    @Test("retry keeps the client message ID, turns failed into pending and moves it to the back")
    func retry() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let conversation = store.conversation(c1)
        let outbox = Outbox(conversation)
        let failed = try outbox.enqueue("refused")
        var refused = failed
        refused.state = .failed
        refused.attempts = 1
        refused.error = "no"
        try DurableFile.write(
            OutboxFile.encode(refused), to: OutboxFile.fileName(ordinal: failed.ordinal, id: failed.clientMessageID),
            in: conversation.outboxDirectory)
        let newer = try outbox.enqueue("later")

        let retried = try outbox.retry(failed.clientMessageID)
        #expect(retried.clientMessageID == failed.clientMessageID)
        let entries = try conversation.outbox()
        #expect(entries.map(\.text) == ["later", "refused"])
        #expect(entries[1].state == .pending && entries[1].error == nil && entries[1].attempts == 1)
        #expect(entries[0].clientMessageID == newer.clientMessageID)
        #expect(try Sys.listDirectory(conversation.outboxDirectory).count == 2)

        #expect(throws: StoreError.self) { try outbox.retry(.random()) }
    }

    @Test("the wanted read position only moves forward, also with many writers at once")
    func readForwardOnly() async throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let outbox = Outbox(store.conversation(c1))
        #expect(try outbox.wantRead(upTo: 5) == 5)
        #expect(try outbox.wantRead(upTo: 3) == 5)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for value in (1...40).shuffled() {
                group.addTask { _ = try outbox.wantRead(upTo: value) }
            }
            try await group.waitForAll()
        }
        #expect(try store.conversation(c1).wantedReadPosition() == 40)
        #expect(throws: StoreError.self) { try outbox.wantRead(upTo: 0) }
    }
}
