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
