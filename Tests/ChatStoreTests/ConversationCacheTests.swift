import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

extension LiveStore {
    @Suite(.ownThreads) struct ConversationCacheTests {
        @Test("a refresh reads only the files the change names")
        func readsOnlyNamedFiles() throws {
            let fixture = try LiveFixture(messages: 250)
            let cache = ConversationCache(
                conversation: fixture.store.conversation(fixture.c1), me: fixture.alice, limit: 1000)
            _ = cache.reload()
            // Change two segments, but announce only one of them.
            try fixture.writer.save(
                [fixture.message(251), fixture.message(50 + 0 * 1)].filter { $0.sequence == 251 }, in: fixture.c1)
            let first = try #require(SegmentRange(fileName: "0000000001-0000000100.json"))
            var silent = try fixture.store.conversation(fixture.c1).readSegment(first)
            silent.removeLast()
            try DurableFile.write(
                SegmentFile.encode(silent), to: first.fileName,
                in: fixture.store.conversation(fixture.c1).messagesDirectory)
            let changes = cache.apply([
                WatchedChange(directory: "messages", name: "0000000201-0000000300.json", kind: .written)
            ])
            #expect(changes.count == 1)
            #expect(cache.state().rows.count == 251, "the unannounced segment was not read again")
            // A rescan (what an overflow triggers) finds the unannounced change too.
            let rescanned = cache.reload()
            #expect(rescanned == [.messageRemoved(fixture.c1, sequence: 100)])
            #expect(cache.state().rows.count == 250)
        }

        @Test("a damaged file is reported with its path and the last sound copy stays on screen")
        func damagedFileKeepsRows() throws {
            let fixture = try LiveFixture(messages: 3)
            let cache = ConversationCache(
                conversation: fixture.store.conversation(fixture.c1), me: fixture.alice, limit: 50)
            _ = cache.reload()
            try DurableFile.write(
                Array("[\n{\"broken\n".utf8), to: "0000000001-0000000100.json",
                in: fixture.store.conversation(fixture.c1).messagesDirectory)
            _ = cache.apply([WatchedChange(directory: "messages", name: "0000000001-0000000100.json", kind: .written)])
            let state = cache.state()
            #expect(state.rows.count == 3)
            #expect(state.problems.first?.hasPrefix("conversations/c1/messages/0000000001-0000000100.json") == true)
        }

        /// Bob's Matrix message `sequence` (event `$e<sequence>`), or his edit of `replaces`.
        static func matrixMessage(_ sequence: Int, replaces: Int? = nil, redacted: Bool = false) throws -> Message {
            let event = try EventID("$e\(sequence)")
            return Message(
                sequence: sequence, clientMessageID: .derived(fromEventID: event),
                senderID: try UserID("@bob:example.org"), text: redacted ? "" : "m\(sequence)",
                sentAt: "2026-11-29T10:00:00.000Z", eventID: event, redacted: redacted,
                replaces: try replaces.map { try EventID("$e\($0)") })
        }

        @Test(
            "the older revision moves for a record rewritten below the window and for an edit of a message there; not for a new message or an edit inside the window"
        )
        func olderRevision() throws {
            let directory = try TemporaryDirectory()
            let store = try Store.create(
                at: directory.path + "/store",
                manifest: Manifest(userID: try UserID("@alice:example.org"), segmentSize: 10))
            let room = try ConversationID("room")
            let writer = try StoreWriter(store: store)
            _ = try writer.save(try (1...30).map { try Self.matrixMessage($0) }, in: room)
            let cache = ConversationCache(
                conversation: store.conversation(room), me: try UserID("@alice:example.org"), limit: 10)
            _ = cache.reload()
            #expect(cache.floor == 21)
            let start = cache.state().olderRevision
            let newest = WatchedChange(directory: "messages", name: "0000000031-0000000040.json", kind: .written)

            _ = try writer.save([try Self.matrixMessage(31)], in: room)
            _ = cache.apply([newest])
            _ = try writer.save([try Self.matrixMessage(32, replaces: 25)], in: room)
            _ = cache.apply([newest])
            #expect(cache.state().olderRevision == start, "a new message and an edit of one shown")

            _ = try writer.save([try Self.matrixMessage(33, replaces: 5)], in: room)
            _ = cache.apply([newest])
            let edited = cache.state().olderRevision
            #expect(edited > start, "an edit of a message below the window")

            var first = try store.conversation(room).readSegment(
                try #require(SegmentRange(fileName: "0000000001-0000000010.json")))
            first[2] = try Self.matrixMessage(3, redacted: true)
            try DurableFile.write(
                SegmentFile.encode(first), to: "0000000001-0000000010.json",
                in: store.conversation(room).messagesDirectory)
            _ = cache.apply([WatchedChange(directory: "messages", name: "0000000001-0000000010.json", kind: .written)])
            #expect(cache.state().olderRevision > edited, "a record rewritten below the window")
            #expect(cache.state().rows.count == 11, "rows 21 to 31; edits make none")
        }
    }
}
