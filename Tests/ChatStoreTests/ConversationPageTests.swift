import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// Opening a conversation reads segment tails (`newestMessagesFromTails`); these tests hold it to
/// the whole-file path (`newestMessagesDecodingWhole`, what every read did before): the same
/// rows, ticks, order and `hasOlder`, or the same error naming file and line.
@Suite(.ownThreads) struct ConversationPageTests {
    /// A store of `count` messages in segments of `segmentSize`, alice and bob taking turns.
    func store(_ directory: TemporaryDirectory, messages count: Int, segmentSize: Int = 100) throws -> Store {
        let store = try makeStore(in: directory, segmentSize: segmentSize)
        let writer = try StoreWriter(store: store)
        try writer.saveInfo(ConversationInfo(title: "T", members: [alice, bob]), for: c1)
        if count > 0 { try writer.save((1...count).map { message($0, $0 % 2 == 0 ? alice : bob) }, in: c1) }
        return store
    }

    func path(_ store: Store, _ range: SegmentRange) -> String {
        store.conversation(c1).messagesDirectory + "/" + range.fileName
    }

    func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Rewrites the segment file holding `sequence` as `edit` says (a hand edit, a damage).
    func edit(_ store: Store, segmentOf sequence: Int, _ edit: (String) -> String) throws {
        let file = path(store, SegmentRange(containing: sequence, size: 100))
        try write(edit(try String(contentsOfFile: file, encoding: .utf8)), to: file)
    }

    /// The page or the error's text, read both ways.
    func bothWays(_ conversation: Conversation, limit: Int, before: Int? = nil) -> (opened: String, whole: String) {
        func describe(_ read: () throws(StoreError) -> (messages: [Message], hasOlder: Bool)) -> String {
            do {
                let page = try read()
                return "\(page.messages) hasOlder: \(page.hasOlder)"
            } catch {
                return "error: \(error.description)"
            }
        }
        return (
            describe { () throws(StoreError) in try conversation.newestMessages(limit: limit, before: before) },
            describe { () throws(StoreError) in
                try conversation.newestMessagesDecodingWhole(limit: limit, before: before)
            }
        )
    }

    @Test(
        "pages of sound segments come from the tails and equal the whole-file pages",
        arguments: [(0, 100), (30, 100), (50, 100), (100, 100), (130, 100), (250, 100), (95, 10), (7, 10)])
    func soundPages(messages: Int, segmentSize: Int) throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: messages, segmentSize: segmentSize)
        let conversation = store.conversation(c1)
        for limit in [1, 20, 50, 100] {
            let fast = try #require(try conversation.newestMessagesFromTails(limit: limit, before: nil))
            let whole = try conversation.newestMessagesDecodingWhole(limit: limit, before: nil)
            #expect(fast.messages == whole.messages)
            #expect(fast.hasOlder == whole.hasOlder)
            #expect(fast.messages.map(\.sequence) == Array(max(1, messages - limit + 1)..<(messages + 1)))
        }
        for before in [1, 2, 31, 50, 51, messages, messages + 1] {
            let ways = bothWays(conversation, limit: 20, before: before)
            #expect(ways.opened == ways.whole)
        }
    }

    @Test("rows, ticks and the outbox (pending and failed) are the same both ways")
    func rows() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 130)
        let writer = try StoreWriter(store: store)
        try writer.mergePositions(
            Positions([
                alice: MemberPosition(deliveredUpTo: 130, readUpTo: 120),
                bob: MemberPosition(deliveredUpTo: 125, readUpTo: 110),
            ]), in: c1)
        let outbox = Outbox(store.conversation(c1))
        let failed = try outbox.enqueue("this one fails")
        try outbox.enqueue("still pending")
        try writer.markFailed(failed.clientMessageID, reason: "no", in: c1)
        try outbox.wantRead(upTo: 128)
        let conversation = store.conversation(c1)
        let snapshot = try conversation.snapshot(limit: 50)
        let page = try conversation.newestMessagesDecodingWhole(limit: 50, before: nil)
        let expected = ConversationSnapshot(
            id: c1, info: try conversation.info(), messages: page.messages, hasOlder: page.hasOlder,
            outbox: try conversation.outbox(), positions: try conversation.positions())
        #expect(snapshot == expected)
        let rows = snapshot.rows(me: alice)
        #expect(rows == expected.rows(me: alice))
        #expect(rows.count == 52)
        #expect(rows.suffix(2).map(\.status) == [.failed(reason: "no"), .pending])
        #expect(rows.contains { $0.status == .outgoing(.read) } && rows.contains { $0.status == .outgoing(.delivered) })
    }

    @Test("a damaged last line gives the same error, naming the file and line")
    func damagedLastLine() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 130)
        try edit(store, segmentOf: 130) {
            $0.replacingOccurrences(of: "\"sequence\":130,", with: "\"sequence\":\"130\",")
        }
        let conversation = store.conversation(c1)
        #expect(try conversation.newestMessagesFromTails(limit: 50, before: nil) == nil)
        let ways = bothWays(conversation, limit: 50)
        #expect(ways.opened == ways.whole)
        #expect(ways.opened.hasPrefix("error: conversations/c1/messages/0000000101-0000000200.json:31:"))
    }

    @Test("a page spanning two segments checks the tail of the older one", arguments: [true, false])
    func damageInOlderSegment(reached: Bool) throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 130)
        // The page of 50 reaches back to 81; line 92 holds 91, line 12 holds 11.
        let sequence = reached ? 91 : 11
        try edit(store, segmentOf: 1) {
            $0.replacingOccurrences(of: "\"sequence\":\(sequence),", with: "\"sequence\":0,")
        }
        let conversation = store.conversation(c1)
        let ways = bothWays(conversation, limit: 50)
        if reached {
            #expect(ways.opened == ways.whole)
            #expect(ways.opened.contains("0000000001-0000000100.json:92:"))
        } else {
            // Damage the page does not reach is `check`'s to find; the page is shown.
            #expect(ways.opened.hasPrefix("["))
            #expect(ways.whole.hasPrefix("error: conversations/c1/messages/0000000001-0000000100.json:12:"))
        }
    }

    @Test("a hand-edited file in another layout reads the same page as the whole-file path")
    func handEdited() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 130)
        try edit(store, segmentOf: 130) {
            $0.replacingOccurrences(of: "\n{", with: "\n  {").replacingOccurrences(of: "\n]\n", with: "\n]")
        }
        let conversation = store.conversation(c1)
        #expect(try conversation.newestMessagesFromTails(limit: 50, before: nil) == nil)
        let ways = bothWays(conversation, limit: 50)
        #expect(ways.opened == ways.whole)
        #expect(try conversation.newestMessages(limit: 50).messages.map(\.sequence) == Array(81...130))
    }

    @Test("conflict markers give the same error both ways")
    func conflictMarkers() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 130)
        try edit(store, segmentOf: 130) { text in
            var lines = text.components(separatedBy: "\n")
            lines.insert(
                contentsOf: [
                    "<<<<<<< ours", lines[30], "=======",
                    lines[30].replacingOccurrences(of: "message 130", with: "other 130"), ">>>>>>> theirs",
                ], at: 30)
            lines.remove(at: 35)
            return lines.joined(separator: "\n")
        }
        let ways = bothWays(store.conversation(c1), limit: 50)
        #expect(ways.opened == ways.whole)
        #expect(ways.opened.contains("unresolved git merge conflict"))
    }

    @Test("a client ID in two segments gives the same error both ways")
    func duplicateAcrossSegments() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 130)
        let older = SegmentRange(containing: 1, size: 100)
        let newer = SegmentRange(containing: 101, size: 100)
        try edit(store, segmentOf: 1) {
            $0.replacingOccurrences(
                of: message(95).clientMessageID.rawValue, with: message(120).clientMessageID.rawValue)
        }
        let conversation = store.conversation(c1)
        #expect(try conversation.newestMessagesFromTails(limit: 50, before: nil) == nil)
        let ways = bothWays(conversation, limit: 50)
        #expect(ways.opened == ways.whole)
        #expect(ways.opened.contains(newer.fileName) && ways.opened.contains(older.fileName))
    }

    @Test("without messages/.newest the page is the same, found by listing")
    func missingHint() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 130)
        try FileManager.default.removeItem(atPath: store.conversation(c1).messagesDirectory + "/.newest")
        let conversation = store.conversation(c1)
        let fast = try #require(try conversation.newestMessagesFromTails(limit: 50, before: nil))
        let whole = try conversation.newestMessagesDecodingWhole(limit: 50, before: nil)
        #expect(fast.messages == whole.messages && fast.hasOlder == whole.hasOlder)
        #expect(fast.messages.map(\.sequence) == Array(81...130))
    }

    /// The package's committed stores: SampleData (written by an early chatdir) and the CLI's
    /// damaged fixtures, each a copy of it with one thing broken.
    static let committedStores: [String] = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let fixtures = root.appendingPathComponent("Tests/ChatCLITests/Fixtures").path
        let cases = ((try? FileManager.default.contentsOfDirectory(atPath: fixtures)) ?? []).filter {
            !$0.hasSuffix(".md")
        }.sorted()
        return [root.appendingPathComponent("SampleData/alice").path] + cases.map { fixtures + "/" + $0 }
    }()

    @Test(
        "every conversation of SampleData and of the damaged fixtures opens the same both ways",
        arguments: committedStores)
    func committed(store source: String) throws {
        let directory = try TemporaryDirectory()
        let copy = directory.path + "/store"
        try FileManager.default.copyItem(atPath: source, toPath: copy)
        // unknown-format: refused before any conversation is read
        guard let store = try? Store.open(at: copy) else { return }
        let ids = try store.conversationIDs()
        #expect(!ids.isEmpty)
        for id in ids {
            // 50 reaches every record of these small conversations: the same page or error.
            let ways = bothWays(store.conversation(id), limit: 50)
            #expect(ways.opened == ways.whole, "\(source) \(id)")
            // A smaller page may stop short of the damage: then it is shown, and only the
            // whole-file path (and check) reports it.
            for limit in [1, 5] {
                let ways = bothWays(store.conversation(id), limit: limit)
                #expect(
                    ways.opened == ways.whole || (!ways.opened.hasPrefix("error") && ways.whole.hasPrefix("error")),
                    "\(source) \(id) limit \(limit)")
            }
        }
    }

    @Test("an empty segment file and a missing conversation read the same both ways")
    func empty() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 130)
        try write("[\n]\n", to: path(store, SegmentRange(containing: 101, size: 100)))
        let ways = bothWays(store.conversation(c1), limit: 50)
        #expect(ways.opened == ways.whole)
        #expect(try store.conversation(c1).newestMessages(limit: 50).messages.map(\.sequence) == Array(51...100))
        let nobody = store.conversation(try ConversationID("c2"))
        let none = bothWays(nobody, limit: 50)
        #expect(none.opened == none.whole)
        #expect(none.opened == "[] hasOlder: false")
    }
}
