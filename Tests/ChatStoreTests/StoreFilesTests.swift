import ChatDomain
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// No store file is read or written through a symlink, and none is read past what its kind can
/// hold: what a hostile commit can put in a repository (``StoreFiles``).
@Suite struct StoreFilesTests {
    func link(_ path: String, to destination: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: destination)
    }

    @Test("a segment that is a symlink (to /dev/zero) is refused by name before anything is read")
    func segmentLink() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let writer = try StoreWriter(store: store)
        try writer.save([message(1), message(2)], in: c1)
        let segment = store.conversation(c1).messagesDirectory + "/0000000001-0000000010.json"
        try link(segment, to: "/dev/zero")
        #expect(throws: StoreError.self) {
            try store.conversation(c1).readSegment(SegmentRange(containing: 1, size: 10))
        }
        do {
            _ = try store.conversation(c1).newestMessages(limit: 5)
            Issue.record("read a segment through a symlink")
        } catch {
            #expect(
                error.description
                    == "conversations/c1/messages/0000000001-0000000010.json: a symbolic link; a store holds only plain files and directories, and chatdir reads and writes nothing through a link (a commit may have put it there): replace it with the file itself, or remove it and run `chatdir sync`"
            )
            #expect(error.exitCode == 65)
        }
        // The writer neither reads through it nor replaces it.
        #expect(throws: StoreError.self) { try writer.save([message(3)], in: c1) }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: segment) == "/dev/zero")
        let report = StoreChecker.check(root: store.root)
        #expect(report.errors.map(\.path) == ["conversations/c1/messages/0000000001-0000000010.json"])
    }

    @Test(
        "a segment larger than segmentSize records can be is damaged and named with its size; one at the limit is read")
    func segmentBound() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory, segmentSize: 2)
        let limit = StoreFiles.maxSegmentBytes(segmentSize: 2)
        #expect(limit == 2 * (6 * 65_536 + 1_024) + 4)
        try FileManager.default.createDirectory(
            atPath: store.conversation(c1).messagesDirectory, withIntermediateDirectories: true)
        let path = store.conversation(c1).messagesDirectory + "/0000000001-0000000002.json"
        // A sound segment padded with spaces (lenient layout) up to the limit exactly reads.
        var sound = SegmentFile.encode([message(1)])
        sound.insert(contentsOf: [UInt8](repeating: UInt8(ascii: " "), count: limit - sound.count), at: 1)
        try Data(sound).write(to: URL(fileURLWithPath: path))
        #expect(try store.conversation(c1).readSegment(SegmentRange(containing: 1, size: 2)).map(\.sequence) == [1])
        sound.insert(UInt8(ascii: " "), at: 1)
        try Data(sound).write(to: URL(fileURLWithPath: path))
        #expect {
            try store.conversation(c1).readSegment(SegmentRange(containing: 1, size: 2))
        } throws: { error in
            (error as? StoreError)?.description
                == "conversations/c1/messages/0000000001-0000000002.json: \(limit + 1) bytes, more than a segment of 2 messages can be (at most \(limit) bytes): damaged; restore it from git or another device, or remove it and run `chatdir sync`"
        }
    }

    @Test(
        "a conversation folder, messages/ or outbox/ linked to a directory outside the store: every door refuses it, nothing is written there",
        arguments: ["", "/messages", "/outbox"])
    func directoryLinks(_ which: String) throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let writer = try StoreWriter(store: store)
        try writer.saveInfo(ConversationInfo(title: "t", members: [alice, bob]), for: c1)
        try writer.save([message(1)], in: c1)
        let outside = directory.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        let conversation = store.conversation(c1)
        if which.isEmpty {
            try FileManager.default.removeItem(atPath: conversation.directory)
        }
        try link(conversation.directory + which, to: outside)
        let relative = "conversations/c1" + which
        let refusal =
            "\(relative): a symbolic link, not a directory; a store holds only plain files and directories, and chatdir reads and writes nothing through a link (a commit may have put it there): remove it (`rm \(relative)`) and run `chatdir sync` to fetch it again"
        let attempts: [(String, () throws -> Void)] = [
            ("saveInfo", { try writer.saveInfo(ConversationInfo(title: "t", members: [alice, bob]), for: c1) }),
            ("save", { try writer.save([message(2)], in: c1) }),
            (
                "mergePositions",
                { try writer.mergePositions(Positions([bob: MemberPosition(deliveredUpTo: 1, readUpTo: 1)]), in: c1) }
            ),
            ("recordCaughtUp", { try writer.recordCaughtUp(through: 1, in: c1) }),
            ("enqueue", { try Outbox(conversation).enqueue("hi") }),
            ("wantRead", { try Outbox(conversation).wantRead(upTo: 1) }),
            ("existingConversation", { _ = try store.existingConversation(c1) }),
        ]
        for (name, attempt) in attempts {
            #expect(throws: StoreError.self, "\(name)") { try attempt() }
            do { try attempt() } catch { #expect("\(error)" == refusal, "\(name)") }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
        #expect(store.conversation(c1).summary(me: alice).problem == refusal)
    }
}
