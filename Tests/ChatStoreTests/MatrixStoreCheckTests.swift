import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// A Matrix store's shape as `chatdir check`, the readers and the merge driver see it: the
/// files the Matrix sync will write read back, and the other protocol's files are damage.
@Suite(.ownThreads) struct MatrixStoreCheckTests {
    static let me = try! UserID("@alice:example.org")
    static let them = try! UserID("@bob:example.org")
    static let room = "!OGEhHVWSdvArJzumhm:example.org"

    static func makeMatrixStore(in directory: TemporaryDirectory) throws -> Store {
        try Store.create(
            at: directory.file("store"),
            manifest: Manifest(userID: me, server: try ServerAddress("https://matrix.example.org")))
    }

    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
    }

    @Test("a Matrix room's folder, details and positions pass check and read back through the store")
    func soundStore() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.makeMatrixStore(in: directory)
        let id = ConversationID.matrixRoom(Self.room)
        let info = ConversationInfo(
            title: MatrixRoomTitle.title(
                name: nil, canonicalAlias: nil, members: [Self.me, Self.them], me: Self.me, roomID: Self.room),
            members: [Self.me, Self.them], roomID: Self.room)
        try StoreWriter(store: store).saveInfo(info, for: id)
        let conversation = store.conversation(id)
        // Read receipts only: the writer keeps a Matrix member's delivered position at 0.
        try StoreWriter(store: store).mergePositions(
            Positions([
                Self.me: MemberPosition(deliveredUpTo: 0, readUpTo: 1_000_000_002),
                Self.them: MemberPosition(deliveredUpTo: 0, readUpTo: 1_000_000_001),
            ]), in: id)
        #expect(
            try String(contentsOfFile: conversation.directory + "/positions.json", encoding: .utf8)
                == "{\n\"@alice:example.org\":{\"deliveredUpTo\":0,\"readUpTo\":1000000002},\n\"@bob:example.org\":{\"deliveredUpTo\":0,\"readUpTo\":1000000001}\n}\n"
        )
        let report = StoreChecker.check(root: store.root)
        #expect(report.problems.isEmpty, "\(report.problems)")
        #expect(report.conversations == 1)
        #expect(try conversation.info() == info)
        #expect(try conversation.info()?.title == "@bob:example.org")
        #expect(try conversation.positions()?.entries.map(\.member) == [Self.me, Self.them])
    }

    @Test("a wire v1 conversation in a Matrix store is damage that check and the reader name")
    func wireFileInMatrixStore() throws {
        let directory = try TemporaryDirectory()
        let store = try Self.makeMatrixStore(in: directory)
        let id = try ConversationID("dinner")
        try FileManager.default.createDirectory(
            atPath: store.conversation(id).directory, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        try Self.write(
            "{\n\"members\":[\"alice\",\"bob\"],\n\"title\":\"Dinner\"\n}\n",
            to: store.conversation(id).directory + "/conversation.json")
        let errors = StoreChecker.check(root: store.root).errors.map(\.description)
        #expect(
            Set(errors) == [
                "conversations/dinner/conversation.json: members[0]: \"alice\" is not a Matrix user ID (like @alice:example.org), which a Matrix store holds",
                "conversations/dinner/conversation.json: members[1]: \"bob\" is not a Matrix user ID (like @alice:example.org), which a Matrix store holds",
                "conversations/dinner/conversation.json: the field \"roomId\" is missing; a Matrix store's conversation names its room (restore the file from git or another device)",
            ])
        #expect(throws: StoreError.self) { try store.conversation(id).info() }
    }

    @Test("a Matrix room in a wire v1 store is damage that check names")
    func matrixFileInWireStore() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let id = ConversationID.matrixRoom(Self.room)
        try StoreWriter(store: store).saveInfo(
            ConversationInfo(title: "T", members: [alice], roomID: Self.room, encrypted: true), for: id)
        let errors = StoreChecker.check(root: store.root).errors.map(\.description)
        #expect(
            errors == [
                "conversations/\(id)/conversation.json: \"roomId\" \"!OGEhHVWSdvArJzumhm:example.org\" belongs in a Matrix store's conversation only; this is a wire v1 store, remove the line"
            ])
        #expect(throws: StoreError.self) { try store.conversation(id).info() }
    }

    @Test("the merge driver keeps encryption once either side saw it, and two rooms in one folder conflict")
    func merge() throws {
        let path = "conversations/r/conversation.json"
        let plain = ConversationInfo(title: "Dinner", members: [Self.me, Self.them], roomID: Self.room)
        var encrypted = plain
        encrypted.encrypted = true
        let merged = try StoreMerge.merge(
            base: plain.encode(), ours: plain.encode(), theirs: encrypted.encode(), path: path)
        #expect(merged.isClean && merged.bytes == encrypted.encode())
        let reversed = try StoreMerge.merge(base: [], ours: encrypted.encode(), theirs: plain.encode(), path: path)
        #expect(reversed.isClean && reversed.bytes == encrypted.encode())
        var other = plain
        other.roomID = "!other:example.org"
        let conflict = try StoreMerge.merge(base: [], ours: plain.encode(), theirs: other.encode(), path: path)
        #expect(
            conflict.conflicts == [
                "the room is \"!OGEhHVWSdvArJzumhm:example.org\" on our side and \"!other:example.org\" on theirs"
            ])
        let wire = ConversationInfo(title: "Dinner", members: [alice, bob])
        #expect(throws: StoreMerge.Failure.self) {
            try StoreMerge.merge(base: [], ours: plain.encode(), theirs: wire.encode(), path: path)
        }
    }
}
