import ChatDomain
import Foundation
import Testing
@testable import ChatStore

@Suite struct ConversationTests {
    @Test("opening a conversation reads only the newest segments, never the whole history")
    func readsNewestOnly() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let writer = try StoreWriter(store: store)
        try writer.save((1...95).map { message($0) }, in: c1)
        // Break every old segment: if opening touched them, it would fail.
        let conversation = store.conversation(c1)
        for range in try conversation.segmentRanges() where range.last < 80 {
            try Data("garbage".utf8).write(to: URL(fileURLWithPath: conversation.messagesDirectory + "/" + range.fileName))
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
            #expect(error.description == "chatdir.json: format 7 is not supported by this chatdir (it reads format 1); use a chatdir that knows that format; nothing was changed")
            #expect(error.exitCode == 65)
        }
    }
}
