import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

@Suite(.ownThreads) struct ConversationTests {
    @Test("opening a conversation reads only the newest segments, never the whole history")
    func readsNewestOnly() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let writer = try StoreWriter(store: store)
        try writer.save((1...95).map { message($0) }, in: c1)
        // Break every old segment: if opening touched them, it would fail.
        let conversation = store.conversation(c1)
        for range in try conversation.segmentRanges() where range.last < 80 {
            try Data("garbage".utf8).write(
                to: URL(fileURLWithPath: conversation.messagesDirectory + "/" + range.fileName))
        }
        let page = try conversation.newestMessages(limit: 12)
        #expect(page.messages.map(\.sequence) == Array(84...95))
        #expect(page.hasOlder)
        #expect(throws: StoreError.self) { try conversation.newestMessages(limit: 30) }
    }

    @Test("scrolling back pages through stored history with --before")
    func before() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        try StoreWriter(store: store).save((1...25).map { message($0) }, in: c1)
        let conversation = store.conversation(c1)
        #expect(try conversation.newestMessages(limit: 5, before: 12).messages.map(\.sequence) == [7, 8, 9, 10, 11])
        let oldest = try conversation.newestMessages(limit: 50, before: 4)
        #expect(oldest.messages.map(\.sequence) == [1, 2, 3])
        #expect(!oldest.hasOlder)
    }

    @Test("a snapshot joins messages, outbox and positions into rows with ticks")
    func snapshotRows() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let writer = try StoreWriter(store: store)
        try writer.saveInfo(ConversationInfo(title: "T", members: [alice, bob]), for: c1)
        try writer.save([message(1, alice), message(2, bob), message(3, alice)], in: c1)
        try Outbox(store.conversation(c1)).enqueue("later")
        var rows = try store.conversation(c1).snapshot(limit: 50).rows(me: alice)
        #expect(rows.map(\.status) == [.outgoing(.unknown), .incoming, .outgoing(.unknown), .pending])
        try writer.mergePositions(Positions([bob: MemberPosition(deliveredUpTo: 3, readUpTo: 1)]), in: c1)
        rows = try store.conversation(c1).snapshot(limit: 50).rows(me: alice)
        #expect(rows.map(\.status) == [.outgoing(.read), .incoming, .outgoing(.delivered), .pending])
    }

    @Test("a store in an unknown format is refused before anything is read")
    func unknownFormat() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        try Data("{\"format\":7}\n".utf8).write(to: URL(fileURLWithPath: store.root + "/chatdir.json"))
        do {
            _ = try Store.open(at: store.root)
            Issue.record("opened a format 7 store")
        } catch {
            #expect(
                error.description
                    == "chatdir.json: format 7 is not supported by this chatdir (it reads format 1); use a chatdir that knows that format; nothing was changed"
            )
            #expect(error.exitCode == 65)
        }
    }
}

@Suite(.ownThreads) struct NewestHintTests {
    func store(_ directory: TemporaryDirectory, messages: Int) throws -> Store {
        let store = try makeStore(in: directory)
        try StoreWriter(store: store).save((1...messages).map { message($0) }, in: c1)
        return store
    }

    func hintPath(_ store: Store) -> String { store.conversation(c1).messagesDirectory + "/.newest" }

    @Test("the writer keeps messages/.newest naming the newest segment")
    func maintained() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 35)
        #expect(try String(contentsOfFile: hintPath(store), encoding: .utf8) == "0000000031-0000000040.json\n")
        try StoreWriter(store: store).save([message(41)], in: c1)
        #expect(try String(contentsOfFile: hintPath(store), encoding: .utf8) == "0000000041-0000000050.json\n")
        try StoreWriter(store: store).save([message(36)], in: c1)
        #expect(try String(contentsOfFile: hintPath(store), encoding: .utf8) == "0000000041-0000000050.json\n")
    }

    @Test(
        "a missing, wrong, stale or lying hint still gives the newest page",
        arguments: [
            nil, "garbage\n", "0000000011-0000000020.json\n", "0000000051-0000000060.json\n",
            "0000000091-0000000100.json\n",
            "0000000002-0000000011.json\n",
        ])
    func badHints(_ hint: String?) throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 45)
        if let hint {
            try Data(hint.utf8).write(to: URL(fileURLWithPath: hintPath(store)))
        } else {
            try FileManager.default.removeItem(atPath: hintPath(store))
        }
        let page = try store.conversation(c1).newestMessages(limit: 12)
        #expect(page.messages.map(\.sequence) == Array(34...45))
        #expect(page.hasOlder)
    }

    @Test("walking back stops at holes in history and goes on past them")
    func holes() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        try StoreWriter(store: store).save([1, 2, 3, 55, 56, 91, 92].map { message($0) }, in: c1)
        let page = try store.conversation(c1).newestMessages(limit: 5)
        #expect(page.messages.map(\.sequence) == [3, 55, 56, 91, 92])
        #expect(page.hasOlder)
        let all = try store.conversation(c1).newestMessages(limit: 50)
        #expect(all.messages.map(\.sequence) == [1, 2, 3, 55, 56, 91, 92])
        #expect(!all.hasOlder)
    }

    @Test("the writer repairs a stale hint when it starts")
    func repaired() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 45)
        try Data("0000000001-0000000010.json\n".utf8).write(to: URL(fileURLWithPath: hintPath(store)))
        _ = try StoreWriter(store: store)
        #expect(try String(contentsOfFile: hintPath(store), encoding: .utf8) == "0000000041-0000000050.json\n")
    }
}
