import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

/// A Matrix store kept in git, merged by real `git` with the built `chatdir` as its driver: a
/// redaction seen on one device wins over the original another device still holds.
@Suite(.ownThreads) struct MatrixGitEndToEndTests {
    static let segment = "conversations/room/messages/0000000001-0000000010.json"

    static func record(_ sequence: Int, event: String, text: String) throws -> Message {
        let eventID = try EventID(event)
        return Message(
            sequence: sequence, clientMessageID: .derived(fromEventID: eventID),
            senderID: try UserID("@bob:example.org"), text: text, sentAt: "2026-11-29T10:00:0\(sequence).000Z",
            eventID: eventID)
    }

    @Test("a redaction on one branch and a new message on the other merge cleanly to the redacted record")
    func redactionWinsThroughGit() throws {
        let world = try GitEndToEndTests.World()
        let path = world.directory.file("matrix")
        let store = try Store.create(
            at: path, manifest: Manifest(userID: try UserID("@alice:example.org"), segmentSize: 10))
        try world.repository(path)
        let room = try ConversationID("room")
        let first = try Self.record(1, event: "$e1", text: "hello")
        let secret = try Self.record(2, event: "$e2", text: "my password is hunter2")
        _ = try StoreWriter(store: store).save([first, secret], in: room)
        try world.commit(path, "two messages")

        // The phone saw the redaction: its record of the event is the redacted one.
        try world.git(["checkout", "--quiet", "-b", "phone"], in: path)
        var redacted = secret
        redacted.text = ""
        redacted.redacted = true
        try Data(SegmentFile.encode([first, redacted])).write(to: URL(fileURLWithPath: path + "/" + Self.segment))
        try world.commit(path, "redacted")

        // The laptop still holds the original and got a new message meanwhile.
        try world.git(["checkout", "--quiet", "main"], in: path)
        let third = try Self.record(3, event: "$e3", text: "sorry")
        _ = try StoreWriter(store: store).save([third], in: room)
        try world.commit(path, "a new message")

        let merge = try world.git(["merge", "--no-edit", "phone"], in: path)
        #expect(!merge.stdout.contains("CONFLICT"), "\(merge.stdout)\(merge.stderr)")
        let merged = try Data(contentsOf: URL(fileURLWithPath: path + "/" + Self.segment))
        #expect(Array(merged) == SegmentFile.encode([first, redacted, third]))
        #expect(!String(decoding: merged, as: UTF8.self).contains("hunter2"))
        try world.chatdir(["check", "--quiet", "--store", path])
    }

    @Test("check names the file, line and key of a Matrix record in a wire v1 store, and exits 65")
    func checkRefusesMatrixKeysInWireStore() throws {
        let world = try GitEndToEndTests.World()
        let path = world.directory.file("wire")
        try world.chatdir(["init", "--user", "alice", path])
        let directory = path + "/conversations/room/messages"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // `chatdir init` makes segments of 100.
        let segment = "conversations/room/messages/0000000001-0000000100.json"
        try Data(SegmentFile.encode([try Self.record(1, event: "$e1", text: "hi")])).write(
            to: URL(fileURLWithPath: path + "/" + segment))
        let check = try world.chatdir(["check", "--store", path], expect: 65)
        #expect(
            check.stdout.contains(
                "\(segment):2: error: \"eventId\" is a field of a Matrix store's records, and this store speaks wire v1"
            ), "\(check.stdout)")
    }
}
