import ChatDomain
import ChatProtocol
import Testing

@Suite struct WireDecoderTests {
    @Test("what the encoder writes, the decoder reads back unchanged")
    func roundTrips() throws {
        let message = try WireFixtures.message()
        let alice = try UserID("alice")
        let bob = try UserID("bob")
        let c1 = try ConversationID("c1")
        let page = MessagesPage(items: [try WireFixtures.message(1), message], hasMore: true)
        #expect(try WireDecoder.messagesPage(WireEncoder.messagesPage(page)) == page)
        #expect(try WireDecoder.acceptedMessage(WireEncoder.message(message)) == message)
        let list = [WireConversation(id: c1, title: "Team", members: [alice, bob], lastSequence: 12)]
        #expect(try WireDecoder.conversations(WireEncoder.conversations(list)) == list)
        let position = MemberPosition(deliveredUpTo: 5, readUpTo: 3)
        var positions = Positions()
        positions.merge(position, for: bob)
        #expect(try WireDecoder.receipts(WireEncoder.receipts([(bob, position)])) == positions)
        for kind in PositionKind.allCases {
            #expect(try WireDecoder.position(WireEncoder.position(9, kind), kind) == 9)
        }
        #expect(try WireDecoder.userID(WireEncoder.me(alice)) == alice)
        for event in [LiveEvent.message(c1, message), .receipt(c1, bob, position), .typing(c1, alice)] {
            #expect(try WireDecoder.liveEvent(WireEncoder.liveEvent(event)) == event)
        }
        #expect(WireDecoder.errorMessage(WireEncoder.error("no such thing\nsecond line")) == "no such thing")
    }

    @Test("a live event of a type this client does not know is ignored, not refused")
    func unknownLiveEvent() throws {
        #expect(try WireDecoder.liveEvent(#"{"type":"presence","conversationId":"c1","userId":"bob"}"#) == nil)
    }

    @Test("a position past the format's largest sequence is refused at the decoder")
    func hugePosition() throws {
        #expect(
            throws: WireDecodingError.contract(
                "a receipt: \"readUpTo\" is 20000000000, outside 0…9999900000 (the largest sequence a store can hold)")
        ) {
            try WireDecoder.receipts(
                WireFixtures.bytes(#"{"members":[{"userId":"bob","deliveredUpTo":1,"readUpTo":20000000000}]}"#))
        }
        #expect(WireDecoder.maxSequence == Message.maxSequence)
    }

    static let refusals: [(json: String, reason: String)] = [
        (#"{"items":[],"hasMore":1}"#, #"the messages page: "hasMore" must be true or false"#),
        (#"[]"#, "the messages page must be an object, found an array"),
        (#"{"hasMore":false}"#, #"the messages page: "items" must be an array, found nothing"#),
        (
            #"{"hasMore":false,"items":[{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","senderId":"alice","sentAt":"t","sequence":0,"text":"x"}]}"#,
            #"message 1 of the page: "sequence" is 0, outside 1…9999900000 (the largest sequence a store can hold)"#
        ),
        (
            #"{"hasMore":false,"items":[{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","senderId":"../etc","sentAt":"t","sequence":1,"text":"x"}]}"#,
            #"message 1 of the page: invalid user ID "../etc": it must start with a letter or digit (allowed: letters, digits, '.', '_', '-'; up to 64; starting with a letter or digit)"#
        ),
        (
            #"{"hasMore":false,"items":[{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","senderId":"alice","sentAt":"t","sequence":"1","text":"x"}]}"#,
            #"message 1 of the page: "sequence" must be a whole number, found a string"#
        ),
        (
            #"{"hasMore":false,"items":[{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","senderId":"alice","sentAt":"a\u0001b","sequence":1,"text":"x"}]}"#,
            #"message 1 of the page: "sentAt" is not a timestamp"#
        ),
        ("{", "the messages page is not valid JSON"),
    ]

    @Test("a messages page that breaks the contract is refused with the part and the field named", arguments: refusals)
    func pageRefusals(json: String, reason: String) throws {
        do {
            let page = try WireDecoder.messagesPage(WireFixtures.bytes(json))
            Issue.record("accepted \(page)")
        } catch {
            guard case .contract(let text) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(text.hasPrefix(reason), "\(text)")
        }
    }

    @Test("a live message event without its message is refused")
    func liveEventWithoutMessage() {
        #expect(throws: WireDecodingError.contract(#"a message event has no "message""#)) {
            try WireDecoder.liveEvent(#"{"type":"message","conversationId":"c1"}"#)
        }
    }

    @Test("decoding that outlasts the request's deadline is a slow answer, not a broken one")
    func deadlinePassed() {
        // Long enough for the parser to look at the clock (every 4,096 values; a short answer
        // is decoded whatever the time, see JSONLimitsTests).
        let items = Array(repeating: "0", count: 5_000).joined(separator: ",")
        let bytes = WireFixtures.bytes(#"{"hasMore":false,"items":["# + items + "]}")
        #expect(throws: WireDecodingError.deadlinePassed(what: "the messages page", byteCount: bytes.count)) {
            try WireDecoder.messagesPage(bytes, deadline: .now - .seconds(1))
        }
        #expect(
            WireDecodingError.deadlinePassed(what: "the messages page", byteCount: 28).description
                == "decoding the messages page (28 bytes) did not finish within the request deadline")
    }
}
