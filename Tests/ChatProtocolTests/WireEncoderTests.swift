import ChatDomain
import ChatProtocol
import Testing

@Suite struct WireEncoderTests {
    @Test("a message is written as the store's canonical record, byte for byte")
    func messageIsTheStoreRecord() throws {
        let message = try WireFixtures.message()
        var record = JSONWriter()
        message.writeRecord(into: &record)
        #expect(WireFixtures.text(WireEncoder.message(message)) == WireFixtures.record)
        #expect(WireEncoder.message(message) == record.bytes)
    }

    @Test("each answer body has the bytes wire-v1.md shows")
    func answerBytes() throws {
        let message = try WireFixtures.message()
        let alice = try UserID("alice")
        let bob = try UserID("bob")
        let c1 = try ConversationID("c1")
        #expect(
            WireFixtures.text(WireEncoder.messagesPage(MessagesPage(items: [message, message], hasMore: true)))
                == #"{"hasMore":true,"items":["# + WireFixtures.record + "," + WireFixtures.record + "]}")
        #expect(
            WireFixtures.text(WireEncoder.messagesPage(MessagesPage(items: [], hasMore: false)))
                == #"{"hasMore":false,"items":[]}"#)
        #expect(
            WireFixtures.text(
                WireEncoder.conversations([
                    WireConversation(id: c1, title: "Team", members: [alice, bob], lastSequence: 12)
                ]))
                == #"{"items":[{"id":"c1","lastSequence":12,"members":["alice","bob"],"title":"Team"}]}"#)
        #expect(
            WireFixtures.text(WireEncoder.receipts([(alice, MemberPosition(deliveredUpTo: 5, readUpTo: 3))]))
                == #"{"members":[{"deliveredUpTo":5,"readUpTo":3,"userId":"alice"}]}"#)
        #expect(WireFixtures.text(WireEncoder.position(9, .delivered)) == #"{"deliveredUpTo":9}"#)
        #expect(WireFixtures.text(WireEncoder.position(4, .read)) == #"{"readUpTo":4}"#)
        #expect(WireFixtures.text(WireEncoder.me(alice)) == #"{"userId":"alice"}"#)
        #expect(WireFixtures.text(WireEncoder.error("no \"x\"")) == #"{"error":"no \"x\""}"#)
    }

    @Test("live events keep the key order wire-v1.md shows: type, conversationId, then the rest")
    func liveEventBytes() throws {
        let c1 = try ConversationID("c1")
        #expect(
            WireEncoder.liveEvent(.message(c1, try WireFixtures.message()))
                == #"{"type":"message","conversationId":"c1","message":"# + WireFixtures.record + "}")
        #expect(
            WireEncoder.liveEvent(.receipt(c1, try UserID("bob"), MemberPosition(deliveredUpTo: 8, readUpTo: 6)))
                == #"{"type":"receipt","conversationId":"c1","userId":"bob","deliveredUpTo":8,"readUpTo":6}"#)
    }

    @Test("request bodies are the client's half of the contract")
    func requestBytes() throws {
        let posted = PostedMessage(clientMessageID: try ClientMessageID(WireFixtures.clientMessageID), text: "hi")
        #expect(
            WireFixtures.text(WireEncoder.postedMessage(posted))
                == #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","text":"hi"}"#)
        #expect(WireFixtures.text(WireEncoder.positionRequest(upTo: 41)) == #"{"upToSequence":41}"#)
    }
}
