import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// A redaction that arrives after its message was stored rewrites that record, so a device that
/// saw the original and one that only ever saw the redacted event hold the same bytes.
@Suite struct MatrixRedactionWriteTests {
    static let me = try! UserID("@alice:example.org")
    static let bob = try! UserID("@bob:example.org")
    static let room = try! ConversationID("room")
    static let mine = try! ClientMessageID("6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3")

    static func originals() throws -> [Message] {
        [
            Message(
                sequence: 1, clientMessageID: mine, senderID: me, text: "my secret", sentAt: "2026-11-29T10:00:00.000Z",
                eventID: try EventID("$mine")),
            Message(
                sequence: 2, clientMessageID: .derived(fromEventID: try EventID("$bobs")), senderID: bob,
                text: "bob's secret", sentAt: "2026-11-29T10:00:01.000Z", eventID: try EventID("$bobs"),
                kind: .emote),
            Message(
                sequence: 3, clientMessageID: .derived(fromEventID: try EventID("$later")), senderID: bob,
                text: "still here", sentAt: "2026-11-29T10:00:02.000Z", eventID: try EventID("$later")),
        ]
    }

    static func device(_ directory: TemporaryDirectory, _ name: String) throws -> (Store, StoreWriter) {
        let store = try Store.create(at: directory.path + "/" + name, manifest: Manifest(userID: me, segmentSize: 10))
        return (store, try StoreWriter(store: store))
    }

    static func segment(_ store: Store) throws -> String {
        let path = store.root + "/conversations/room/messages/0000000001-0000000010.json"
        return String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    @Test("a device that stored the originals and one that saw only the redacted events hold the same bytes")
    func sameBytes() throws {
        let directory = try TemporaryDirectory()
        let originals = try Self.originals()
        let redacted = try [originals[0], originals[1]].map { try #require($0.redactedRecord) }
        let (first, firstWriter) = try Self.device(directory, "first")
        try firstWriter.save(originals, in: Self.room)
        let result = try firstWriter.save(redacted, in: Self.room)
        #expect(result.redacted == redacted)
        #expect(result.inserted.isEmpty && result.conflicts.isEmpty)

        let (second, secondWriter) = try Self.device(directory, "second")
        try secondWriter.save(redacted + [originals[2]], in: Self.room)
        let bytes = try Self.segment(first)
        #expect(bytes == (try Self.segment(second)))
        #expect(!bytes.contains("secret"))
        #expect(bytes.contains("still here"))
        #expect(!bytes.contains(Self.mine.rawValue), "my client message ID goes with the text")
        let report = StoreChecker.check(root: first.root)
        #expect(report.errors.isEmpty, "\(report.errors)")
    }

    @Test("the original seen again after its redaction changes nothing: never un-redacted")
    func neverBack() throws {
        let directory = try TemporaryDirectory()
        let originals = try Self.originals()
        let (store, writer) = try Self.device(directory, "store")
        try writer.save([try #require(originals[1].redactedRecord)], in: Self.room)
        let before = try Self.segment(store)
        let again = try writer.save([originals[1]], in: Self.room)
        #expect(again.inserted.isEmpty && again.redacted.isEmpty)
        #expect(try Self.segment(store) == before)
    }

    @Test("a redacted record that is not the stored original's (another time) is not stored as given, nothing written")
    func disagreeing() throws {
        let directory = try TemporaryDirectory()
        let originals = try Self.originals()
        let (store, writer) = try Self.device(directory, "store")
        try writer.save(originals, in: Self.room)
        let before = try Self.segment(store)
        var lying = try #require(originals[1].redactedRecord)
        lying.sentAt = "2026-11-29T11:00:00.000Z"
        let result = try writer.save([lying], in: Self.room)
        #expect(result.redacted.isEmpty)
        #expect(!result.storedExactly.contains(lying), "the caller sees the server's record was not stored")
        #expect(try Self.segment(store) == before)
    }
}
