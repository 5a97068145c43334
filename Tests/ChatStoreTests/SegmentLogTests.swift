import ChatDomain
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// The server's door writes the store format byte for byte as a client's ``StoreWriter`` does,
/// so a data directory and a synced store hold the same segment and positions files.
@Suite(.ownThreads) struct SegmentLogTests {
    static func log(in directory: TemporaryDirectory, segmentSize: Int = 10) -> SegmentLog {
        SegmentLog(Conversation(storeRoot: directory.path + "/data", id: c1, segmentSize: segmentSize))
    }

    @Test("a batch rewrites every segment its new messages touch, whole, and nothing else")
    func batchFiles() throws {
        let history = (1...25).map { message($0) }
        let directory = try TemporaryDirectory()
        let log = Self.log(in: directory)
        let batch = log.batch(of: history, durableCount: 8)
        #expect(batch.through == 25)
        #expect(
            batch.fileNames == [
                "0000000001-0000000010.json", "0000000011-0000000020.json", "0000000021-0000000030.json",
            ])
        #expect(log.batch(of: history, durableCount: 20).fileNames == ["0000000021-0000000030.json"])
        #expect(log.batch(of: history, durableCount: 25).fileNames == [])
    }

    @Test("committed segments and positions are the bytes a client's StoreWriter writes for the same messages")
    func sameBytesAsTheClient() throws {
        let directory = try TemporaryDirectory()
        let history = (1...25).map { message($0, $0 % 2 == 0 ? alice : bob) }
        let log = Self.log(in: directory)
        try log.create(ConversationInfo(title: "t", members: [alice, bob]))
        try log.commit(log.batch(of: Array(history[..<8]), durableCount: 0))
        try log.commit(log.batch(of: history, durableCount: 8))
        var positions = Positions()
        positions.merge(MemberPosition(deliveredUpTo: 25, readUpTo: 20), for: alice)
        positions.merge(MemberPosition(deliveredUpTo: 9, readUpTo: 3), for: bob)
        try log.writePositions(positions)

        let store = try makeStore(in: directory, segmentSize: 10)
        let writer = try StoreWriter(store: store)
        try writer.saveInfo(ConversationInfo(title: "t", members: [alice, bob]), for: c1)
        try writer.save(history, in: c1)
        try writer.mergePositions(positions, in: c1)

        let server = try filesUnder(directory.path + "/data")
        let client = try filesUnder(store.root).filter {
            $0.key.hasPrefix("conversations/") && !$0.key.hasSuffix("/.newest")
        }
        #expect(
            server.keys.sorted() == [
                "conversations/c1/conversation.json", "conversations/c1/messages/0000000001-0000000010.json",
                "conversations/c1/messages/0000000011-0000000020.json",
                "conversations/c1/messages/0000000021-0000000030.json",
                "conversations/c1/positions.json",
            ])
        #expect(server == client)
    }

    @Test(
        "start makes a conversation as create does on a device: the same conversation.json, messages/, no build left; a second start fails and leaves none"
    )
    func startLikeCreate() throws {
        let directory = try TemporaryDirectory()
        let log = Self.log(in: directory)
        try log.start(ConversationInfo(title: "t", members: [alice, bob]))
        let store = try makeStore(in: directory)
        try store.startConversation(c1, title: "t", members: [bob])

        let server = try filesUnder(directory.path + "/data")
        let client = try filesUnder(store.root).filter {
            $0.key.hasPrefix("conversations/") && !$0.key.contains("/outbox/")
        }
        #expect(server.keys.sorted() == ["conversations/c1/conversation.json"])
        #expect(server == client)
        #expect(Sys.kind(of: log.conversation.messagesDirectory) == .directory)

        #expect(throws: StoreError.self) { try log.start(ConversationInfo(title: "other", members: [alice, carol])) }
        #expect(try Sys.listDirectory(directory.path + "/data/conversations") == ["c1"])
        #expect(try filesUnder(directory.path + "/data") == server)
    }

    @Test("stale temp files a killed writer left are removed from the conversation and messages directories")
    func staleTemporaries() throws {
        let directory = try TemporaryDirectory()
        let log = Self.log(in: directory)
        try log.create(ConversationInfo(title: "t", members: [alice, bob]))
        let conversation = log.conversation
        let stale = [
            conversation.directory + "/.positions.json.999999999.1.tmp",
            conversation.messagesDirectory + "/.0000000001-0000000010.json.999999999.2.tmp",
        ]
        for path in stale { try Data("x".utf8).write(to: URL(fileURLWithPath: path)) }
        log.removeStaleTemporaries()
        #expect(stale.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        #expect(FileManager.default.fileExists(atPath: conversation.directory + "/conversation.json"))
    }
}
