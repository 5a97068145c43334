import ChatDomain
import ChatTestSupport
import Testing

@testable import ChatStore

/// `PositionsFile.decodeCanonical` against `PositionsFile.decode`.
@Suite(.ownThreads) struct PositionsCanonicalTests {
    @Test(
        "positions the writer wrote read the same without the JSON parser",
        arguments: [
            Positions(),
            Positions([alice: MemberPosition(deliveredUpTo: 0, readUpTo: 0)]),
            Positions([
                alice: MemberPosition(deliveredUpTo: 99997, readUpTo: 99994),
                bob: MemberPosition(deliveredUpTo: 100_000, readUpTo: 7),
                carol: MemberPosition(deliveredUpTo: 10, readUpTo: 10),
            ]),
        ])
    func sameAsDecode(positions: Positions) throws {
        let bytes = PositionsFile.encode(positions)
        let fast = try #require(PositionsFile.decodeCanonical(bytes))
        let decoded = PositionsFile.decode(bytes, path: "positions.json")
        #expect(decoded.problems.isEmpty)
        #expect(fast == decoded.positions)
        #expect(fast == positions)
    }

    @Test(
        "anything but the writer's layout is left to decode",
        arguments: [
            // unsorted
            "{\n\"bob\":{\"deliveredUpTo\":1,\"readUpTo\":1},\n\"alice\":{\"deliveredUpTo\":1,\"readUpTo\":1}\n}\n",
            // twice
            "{\n\"alice\":{\"deliveredUpTo\":1,\"readUpTo\":1},\n\"alice\":{\"deliveredUpTo\":2,\"readUpTo\":2}\n}\n",
            "{\n\"alice\":{\"deliveredUpTo\":-1,\"readUpTo\":1}\n}\n",
            "{\n\"alice\":{\"deliveredUpTo\":01,\"readUpTo\":1}\n}\n",
            "{\n\"alice\":{\"deliveredUpTo\":1,\"readUpTo\":1,\"x\":1}\n}\n",
            "{\n\"alice\":{\"readUpTo\":1,\"deliveredUpTo\":1}\n}\n",
            "{\n\"alice\": {\"deliveredUpTo\":1,\"readUpTo\":1}\n}\n",
            "{\n\"al ice\":{\"deliveredUpTo\":1,\"readUpTo\":1}\n}\n",
            "{\n\"alice\":{\"deliveredUpTo\":1,\"readUpTo\":1}\n}",
            "{\n\"alice\":{\"deliveredUpTo\":1,\"readUpTo\":1},\n}\n",
            "{\n<<<<<<< ours\n\"alice\":{\"deliveredUpTo\":1,\"readUpTo\":1}\n}\n",
            "",
        ])
    func refused(text: String) {
        #expect(PositionsFile.decodeCanonical(Array(text.utf8)) == nil)
    }
}

/// `ConversationInfo.decodeCanonical` against `ConversationInfo.decode`.
@Suite(.ownThreads) struct ConversationInfoCanonicalTests {
    @Test(
        "details the writer wrote read the same without the JSON parser",
        arguments: [
            ConversationInfo(title: "Group 1 (5 people)", members: [alice, bob, carol]),
            ConversationInfo(title: "Dîner ☕", members: [alice]),
            ConversationInfo(title: "", members: []),
        ])
    func sameAsDecode(info: ConversationInfo) throws {
        let bytes = info.encode()
        let fast = try #require(ConversationInfo.decodeCanonical(bytes))
        let decoded = ConversationInfo.decode(bytes, path: "conversation.json")
        #expect(decoded.problems.isEmpty)
        #expect(fast == decoded.info)
        #expect(fast == info)
    }

    @Test("a title with an escape is left to decode, which reads it")
    func escapedTitle() throws {
        let info = ConversationInfo(title: "The \"A\" team", members: [alice, bob])
        #expect(ConversationInfo.decodeCanonical(info.encode()) == nil)
        #expect(ConversationInfo.decode(info.encode(), path: "conversation.json").info == info)
    }

    @Test(
        "anything but the writer's layout is left to decode",
        arguments: [
            "{\n\"members\":[\"bob\",\"alice\"],\n\"title\":\"T\"\n}\n", // unsorted
            "{\n\"members\":[\"alice\", \"bob\"],\n\"title\":\"T\"\n}\n", // a space
            "{\n\"members\":[\"al ice\"],\n\"title\":\"T\"\n}\n", // not a user ID
            "{\n\"members\":[\"alice\"],\n\"title\":\"T\",\"x\":1\n}\n", // unknown key
            "{\n\"title\":\"T\",\n\"members\":[\"alice\"]\n}\n", // other order
            "{\n\"members\":[\"alice\"],\n\"title\":\"T\"\n}", // no final newline
            "{\n\"members\":[\"alice\",],\n\"title\":\"T\"\n}\n",
            "{\n\"members\":[\"alice\"],\n\"title\":7\n}\n",
            "<<<<<<< ours\n{\n\"members\":[\"alice\"],\n\"title\":\"T\"\n}\n",
            "",
        ])
    func refused(text: String) {
        #expect(ConversationInfo.decodeCanonical(Array(text.utf8)) == nil)
    }
}

/// A Matrix store's `conversation.json` and `positions.json` through the fast readers and the
/// full ones: Matrix user IDs, `roomId` and `encrypted` read without the JSON parser, and each
/// protocol's rules kept by both.
@Suite(.ownThreads) struct MatrixCanonicalFileTests {
    static let me = try! UserID("@alice:example.org")
    static let them = try! UserID("@bob:example.org")
    static let room = "!OGEhHVWSdvArJzumhm:example.org"

    @Test(
        "a Matrix room's details are written with sorted keys and read the same without the JSON parser",
        arguments: [
            (
                ConversationInfo(title: "Dinner", members: [me, them], roomID: room),
                "{\n\"members\":[\"@alice:example.org\",\"@bob:example.org\"],\n\"roomId\":\"!OGEhHVWSdvArJzumhm:example.org\",\n\"title\":\"Dinner\"\n}\n"
            ),
            (
                ConversationInfo(title: "@bob:example.org", members: [me, them], roomID: "!ZVKq", encrypted: true),
                "{\n\"encrypted\":true,\n\"members\":[\"@alice:example.org\",\"@bob:example.org\"],\n\"roomId\":\"!ZVKq\",\n\"title\":\"@bob:example.org\"\n}\n"
            ),
        ])
    func matrixInfo(info: ConversationInfo, text: String) throws {
        let bytes = info.encode()
        #expect(String(decoding: bytes, as: UTF8.self) == text)
        let fast = try #require(ConversationInfo.decodeCanonical(bytes, protocol: .matrix))
        let decoded = ConversationInfo.decode(bytes, path: "conversation.json", protocol: .matrix)
        #expect(decoded.problems.isEmpty)
        #expect(fast == info && decoded.info == info)
    }

    @Test(
        "each protocol refuses the other's conversation details, naming the key, in the fast and the full reader",
        arguments: [
            (
                StoreProtocol.wire,
                "{\n\"members\":[\"alice\"],\n\"roomId\":\"!r:example.org\",\n\"title\":\"T\"\n}\n",
                "c.json: \"roomId\" \"!r:example.org\" belongs in a Matrix store's conversation only; this is a wire v1 store, remove the line"
            ),
            (
                .wire, "{\n\"encrypted\":true,\n\"members\":[\"alice\"],\n\"title\":\"T\"\n}\n",
                "c.json: \"encrypted\" belongs in a Matrix store's conversation only; this is a wire v1 store, remove the line"
            ),
            (
                .wire, "{\n\"members\":[\"@bob:example.org\",\"alice\"],\n\"title\":\"T\"\n}\n",
                "c.json: members[0]: \"@bob:example.org\" is a Matrix user ID, but this is a wire v1 store"
            ),
            (
                .matrix, "{\n\"members\":[\"@alice:example.org\"],\n\"title\":\"T\"\n}\n",
                "c.json: the field \"roomId\" is missing; a Matrix store's conversation names its room"
            ),
            (
                .matrix, "{\n\"members\":[\"@alice:example.org\",\"bob\"],\n\"roomId\":\"!r\",\n\"title\":\"T\"\n}\n",
                "c.json: members[1]: \"bob\" is not a Matrix user ID (like @alice:example.org), which a Matrix store holds"
            ),
            (
                .matrix, "{\n\"members\":[],\n\"roomId\":\"#alias:example.org\",\n\"title\":\"T\"\n}\n",
                "c.json: \"roomId\": \"#alias:example.org\" is not a Matrix room ID: does not start with \"!\""
            ),
            (
                .matrix, "{\n\"encrypted\":false,\n\"members\":[],\n\"roomId\":\"!r\",\n\"title\":\"T\"\n}\n",
                "c.json: \"encrypted\" is written only as true; remove the line for a room that is not encrypted"
            ),
        ])
    func otherProtocolRefused(storeProtocol: StoreProtocol, text: String, message: String) {
        let bytes = Array(text.utf8)
        #expect(ConversationInfo.decodeCanonical(bytes, protocol: storeProtocol) == nil)
        let decoded = ConversationInfo.decode(bytes, path: "c.json", protocol: storeProtocol)
        #expect(decoded.info == nil)
        #expect(decoded.problems.first?.description.hasPrefix(message) == true, "\(decoded.problems)")
    }

    @Test("positions of Matrix members are read without the JSON parser, delivered positions 0")
    func matrixPositions() throws {
        let positions = Positions([
            Self.me: MemberPosition(deliveredUpTo: 0, readUpTo: 1_000_000_041),
            Self.them: MemberPosition(deliveredUpTo: 0, readUpTo: 999_999_990),
        ])
        let bytes = PositionsFile.encode(positions)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "{\n\"@alice:example.org\":{\"deliveredUpTo\":0,\"readUpTo\":1000000041},\n\"@bob:example.org\":{\"deliveredUpTo\":0,\"readUpTo\":999999990}\n}\n"
        )
        #expect(PositionsFile.decodeCanonical(bytes, protocol: .matrix) == positions)
        let decoded = PositionsFile.decode(bytes, path: "positions.json", protocol: .matrix)
        #expect(decoded.problems.isEmpty && decoded.positions == positions)
    }

    @Test(
        "positions that break the store's protocol are left to the full reader, which names the member",
        arguments: [
            (
                StoreProtocol.matrix, "{\n\"@bob:example.org\":{\"deliveredUpTo\":4,\"readUpTo\":1}\n}\n",
                "p.json:2: @bob:example.org: \"deliveredUpTo\" is 4, but Matrix has no delivered receipts, so a Matrix store keeps it 0; set it to 0"
            ),
            (
                .matrix, "{\n\"bob\":{\"deliveredUpTo\":0,\"readUpTo\":1}\n}\n",
                "p.json:2: \"bob\" is not a Matrix user ID (like @alice:example.org), which a Matrix store holds; remove or rename it"
            ),
            (
                .wire, "{\n\"@bob:example.org\":{\"deliveredUpTo\":0,\"readUpTo\":1}\n}\n",
                "p.json:2: \"@bob:example.org\" is a Matrix user ID, but this is a wire v1 store"
            ),
        ])
    func positionsRefused(storeProtocol: StoreProtocol, text: String, message: String) {
        let bytes = Array(text.utf8)
        #expect(PositionsFile.decodeCanonical(bytes, protocol: storeProtocol) == nil)
        let decoded = PositionsFile.decode(bytes, path: "p.json", protocol: storeProtocol)
        #expect(decoded.problems.first?.description.hasPrefix(message) == true, "\(decoded.problems)")
    }

    @Test("a Matrix user ID with a quote in its local part is escaped, left to the full reader, and read back")
    func escapedMember() throws {
        let odd = try UserID("@o\"dd:example.org")
        let positions = Positions([odd: MemberPosition(deliveredUpTo: 0, readUpTo: 3)])
        let bytes = PositionsFile.encode(positions)
        #expect(PositionsFile.decodeCanonical(bytes, protocol: .matrix) == nil)
        #expect(PositionsFile.decode(bytes, path: "p.json", protocol: .matrix).positions == positions)
        let info = ConversationInfo(title: "T", members: [odd], roomID: Self.room)
        #expect(ConversationInfo.decodeCanonical(info.encode(), protocol: .matrix) == nil)
        #expect(ConversationInfo.decode(info.encode(), path: "c.json", protocol: .matrix).info == info)
    }
}
