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
    }
}
