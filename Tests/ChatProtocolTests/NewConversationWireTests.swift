import ChatDomain
import ChatProtocol
import Testing

/// The wire of `POST /v1/conversations`: the client's body reads back on the server, the 201
/// and the live event read back on the client.
@Suite struct NewConversationWireTests {
    @Test("a creation's body, its answer and its live event survive a round trip; members come sorted, once each")
    func roundTrip() throws {
        let id = try ConversationID("dinner")
        let members = try ["carol", "alice", "bob", "alice"].map { try UserID($0) }
        let asked = NewConversation(id: id, title: "Dinner", members: members)
        #expect(asked.members.map(\.rawValue) == ["alice", "bob", "carol"])
        #expect(try WireRequestDecoder.newConversation(WireEncoder.newConversation(asked)) == asked)
        let listed = WireConversation(id: id, title: "Dinner", members: asked.members, lastSequence: 0)
        #expect(try WireDecoder.startedConversation(WireEncoder.conversation(listed)) == listed)
        let event = LiveEvent.conversation(id, title: "Dinner", members: asked.members)
        #expect(try WireDecoder.liveEvent(WireEncoder.liveEvent(event)) == event)
    }

    @Test(
        "titles",
        arguments: [
            ("Dinner", true), ("", false), (" \t", false), ("a\nb", false), (String(repeating: "x", count: 200), true),
            (String(repeating: "x", count: 201), false),
        ])
    func titles(title: String, valid: Bool) {
        #expect((NewConversation.problem(withTitle: title) == nil) == valid)
    }

    @Test("a conversation event with a bad member is refused, not stored")
    func badEvent() {
        #expect(throws: WireDecodingError.self) {
            try WireDecoder.liveEvent(#"{"type":"conversation","conversationId":"d","title":"T","members":["../x"]}"#)
        }
    }
}
