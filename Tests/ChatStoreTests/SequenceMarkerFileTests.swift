import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// `.caught-up` has one writer, ``StoreWriter/recordCaughtUp(through:in:)``, and one reader,
/// ``Conversation/caughtUpMarker()``; `.history-complete` likewise
/// (``StoreWriter/recordHistoryComplete(from:in:)``, ``Conversation/historyCompleteMarker()``).
/// The bytes of both are a decimal number and a newline.
@Suite(.ownThreads) struct SequenceMarkerFileTests {
    @Test("the writer records the marker as a number and a newline in the conversation's directory")
    func bytesOnDisk() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let writer = try StoreWriter(store: store)
        try writer.saveInfo(ConversationInfo(title: "t", members: [alice, bob]), for: c1)
        #expect(store.conversation(c1).caughtUpMarker() == nil)

        try writer.recordCaughtUp(through: 417, in: c1)
        let path = store.conversation(c1).directory + "/.caught-up"
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == Array("417\n".utf8))
        #expect(store.conversation(c1).caughtUpMarker() == 417)
        #expect(
            try filesUnder(store.root).keys.filter { $0.hasSuffix(".caught-up") } == ["conversations/c1/.caught-up"])
    }

    @Test("recording the same number again leaves the file alone; a new number replaces it")
    func writesOnlyChanges() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let writer = try StoreWriter(store: store)
        try writer.saveInfo(ConversationInfo(title: "t", members: [alice, bob]), for: c1)
        let path = store.conversation(c1).directory + "/.caught-up"
        try writer.recordCaughtUp(through: 5, in: c1)
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64
        try writer.recordCaughtUp(through: 5, in: c1)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64 == inode)
        try writer.recordCaughtUp(through: 6, in: c1)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64 != inode)
        #expect(store.conversation(c1).caughtUpMarker() == 6)
    }

    @Test("a marker that is not a number reads as none", arguments: ["", "\n", "abc\n", "12x\n", "-\n"])
    func unreadable(_ text: String) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let writer = try StoreWriter(store: store)
        try writer.saveInfo(ConversationInfo(title: "t", members: [alice, bob]), for: c1)
        try Data(text.utf8).write(to: URL(fileURLWithPath: store.conversation(c1).directory + "/.caught-up"))
        #expect(store.conversation(c1).caughtUpMarker() == nil)
    }

    @Test(
        "the history marker: its own file, a number and a newline, written only when it changes, never the sync marker"
    )
    func historyMarker() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let writer = try StoreWriter(store: store)
        try writer.saveInfo(ConversationInfo(title: "t", members: [alice, bob]), for: c1)
        #expect(store.conversation(c1).historyCompleteMarker() == nil)
        try writer.recordHistoryComplete(from: 999_990_001, in: c1)
        let path = store.conversation(c1).directory + "/.history-complete"
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == Array("999990001\n".utf8))
        #expect(store.conversation(c1).historyCompleteMarker() == 999_990_001)
        #expect(store.conversation(c1).caughtUpMarker() == nil)
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64
        try writer.recordHistoryComplete(from: 999_990_001, in: c1)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? UInt64 == inode)
        try Data("x\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(store.conversation(c1).historyCompleteMarker() == nil)
    }
}
