import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// The conversation list's line (`Conversation.summary(me:)`) reads only the records past my read
/// position from the segments' ends (`unreadFromTails`); these tests hold it to the whole-file
/// count (`unreadDecodingWhole`, what `list` read before): the same last message and unread count,
/// or the same error naming the damaged file.
@Suite(.ownThreads) struct ConversationSummaryTests {
    /// A store of `count` messages in segments of `segmentSize`; every third is mine (alice's).
    func store(_ directory: TemporaryDirectory, messages count: Int, segmentSize: Int = 100) throws -> Store {
        let store = try makeStore(in: directory, segmentSize: segmentSize)
        let writer = try StoreWriter(store: store)
        try writer.saveInfo(ConversationInfo(title: "T", members: [alice, bob]), for: c1)
        if count > 0 { try writer.save((1...count).map { message($0, $0 % 3 == 0 ? alice : bob) }, in: c1) }
        return store
    }

    func markRead(_ store: Store, upTo sequence: Int) throws {
        let position = MemberPosition(deliveredUpTo: sequence, readUpTo: sequence)
        _ = try StoreWriter(store: store).mergePositions(
            Positions(entries: [.init(member: alice, position: position)]), in: c1)
    }

    func segmentPath(_ store: Store, of sequence: Int, size: Int = 100) -> String {
        store.conversation(c1).messagesDirectory + "/" + SegmentRange(containing: sequence, size: size).fileName
    }

    /// Others' messages in `1...count` past `readUpTo`: what the list should say when nothing caps it.
    func expectedUnread(_ count: Int, readUpTo: Int) -> Int {
        (1...max(count, 1)).filter { $0 <= count && $0 > readUpTo && $0 % 3 != 0 }.count
    }

    @Test(
        "the count and last message from the tails equal the whole-file count, at every read position",
        arguments: [(0, 100), (1, 100), (99, 100), (100, 100), (101, 100), (250, 100), (95, 10), (7, 10)])
    func sameAsWhole(messages: Int, segmentSize: Int) throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: messages, segmentSize: segmentSize)
        let conversation = store.conversation(c1)
        for readUpTo in Set([
            0, 1, segmentSize - 1, segmentSize, segmentSize + 1, messages / 2, messages - 1, messages, messages + 5,
        ]) where readUpTo >= 0 {
            let tails = try #require(try conversation.unreadFromTails(me: alice, readUpTo: readUpTo))
            let whole = try conversation.unreadDecodingWhole(me: alice, readUpTo: readUpTo)
            #expect(tails.unread == whole.unread, "read up to \(readUpTo)")
            // The whole-file count keeps the newest record of a segment it decoded even when that
            // record is read; the tails leave it, and the summary then reads the newest record.
            let newest = try conversation.newestMessages(limit: 1).messages.last
            #expect((tails.last ?? newest) == (whole.last ?? newest), "read up to \(readUpTo)")
            #expect(tails.unread == expectedUnread(messages, readUpTo: readUpTo), "read up to \(readUpTo)")
            #expect(tails.last?.sequence == (readUpTo < messages ? messages : nil), "read up to \(readUpTo)")
        }
    }

    @Test("summary: the unread count past the stored read position, and the newest message when all is read")
    func summaryLine() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 130)
        try markRead(store, upTo: 95)
        var summary = store.conversation(c1).summary(me: alice)
        #expect(summary.problem == nil)
        #expect(summary.unread == expectedUnread(130, readUpTo: 95))
        #expect(summary.last?.sequence == 130)
        try markRead(store, upTo: 130)
        summary = store.conversation(c1).summary(me: alice)
        #expect(summary.unread == 0)
        #expect(summary.last?.sequence == 130, "all read: the newest message is still shown")
    }

    @Test("counting stops at the cap a whole segment at a time, as before")
    func cap() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 2_050)
        let conversation = store.conversation(c1)
        let tails = try #require(try conversation.unreadFromTails(me: alice, readUpTo: 0))
        let whole = try conversation.unreadDecodingWhole(me: alice, readUpTo: 0)
        #expect(tails.unread == whole.unread)
        #expect(tails.unread >= ConversationSummary.unreadCap)
        #expect(tails.unread < expectedUnread(2_050, readUpTo: 0), "segments under the cap's are not read")
        #expect(conversation.summary(me: alice).unread == tails.unread)
    }

    @Test("a damaged record past the read position: the tails refuse and the list names the file and line")
    func damagedUnread() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 130)
        try markRead(store, upTo: 110)
        let file = segmentPath(store, of: 120)
        var text = try String(contentsOfFile: file, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"sequence\":125,", with: "\"sequence\":\"125\",")
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let conversation = store.conversation(c1)
        #expect(try conversation.unreadFromTails(me: alice, readUpTo: 110) == nil)
        let problem = try #require(conversation.summary(me: alice).problem)
        // "[" is line 1, sequence 101 line 2.
        #expect(
            problem.hasPrefix(
                "conversations/c1/messages/" + SegmentRange(containing: 120, size: 100).fileName + ":26: "),
            "\(problem)")
    }

    @Test("a damaged record at or under the read position is not read for the count, as a page does not read it")
    func damagedRead() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 130)
        try markRead(store, upTo: 120)
        let file = segmentPath(store, of: 110)
        var text = try String(contentsOfFile: file, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"sequence\":110,", with: "\"sequence\":\"110\",")
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let summary = store.conversation(c1).summary(me: alice)
        #expect(summary.problem == nil)
        #expect(summary.unread == expectedUnread(130, readUpTo: 120))
    }

    @Test("a client ID twice among the unread records: the tails refuse, and the whole-file decoder says so")
    func repeatedID() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 130)
        let file = segmentPath(store, of: 120)
        let twin = message(128, bob).clientMessageID.rawValue
        var text = try String(contentsOfFile: file, encoding: .utf8)
        text = text.replacingOccurrences(of: message(129, bob).clientMessageID.rawValue, with: twin)
        try Data(text.utf8).write(to: URL(fileURLWithPath: file))
        let conversation = store.conversation(c1)
        #expect(try conversation.unreadFromTails(me: alice, readUpTo: 100) == nil)
        let problem = try #require(conversation.summary(me: alice).problem)
        #expect(problem.contains("appears twice"), "\(problem)")
    }

    @Test("a segment in another valid layout (pretty-printed) is counted from the whole file, with the same figures")
    func otherLayout() throws {
        let directory = try TemporaryDirectory()
        let store = try store(directory, messages: 130)
        try markRead(store, upTo: 105)
        let file = segmentPath(store, of: 120)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        // One line: valid JSON, but not the one-record-per-line layout the tail reader reads.
        try Data((text.replacingOccurrences(of: "\n", with: "") + "\n").utf8).write(to: URL(fileURLWithPath: file))
        let conversation = store.conversation(c1)
        #expect(try conversation.unreadFromTails(me: alice, readUpTo: 105) == nil)
        let summary = conversation.summary(me: alice)
        #expect(summary.problem == nil)
        #expect(summary.unread == expectedUnread(130, readUpTo: 105))
        #expect(summary.last?.sequence == 130)
    }
}
