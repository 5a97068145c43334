import ChatDomain
import ChatProtocol
import Testing

@Suite struct WireRequestDecoderTests {
    @Test("what the client encodes, the server reads back")
    func roundTrip() throws {
        let posted = PostedMessage(
            clientMessageID: try ClientMessageID(WireFixtures.clientMessageID), text: "hi \"there\"")
        #expect(try WireRequestDecoder.postedMessage(WireEncoder.postedMessage(posted)) == posted)
        #expect(try WireRequestDecoder.positionRequest(WireEncoder.positionRequest(upTo: 12)) == 12)
    }

    static let postRefusals: [(body: String, message: String)] = [
        ("", "the body is empty; send a JSON object with Content-Length"),
        ("[]", "the body is an array; send a JSON object"),
        (
            #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","text":"x","sender":"eve"}"#,
            #"unknown field "sender"; allowed: clientMessageId, text"#
        ),
        (#"{"text":"x"}"#, #"the field "clientMessageId" is missing"#),
        (
            #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","text":5}"#,
            #""text" must be a string, found an integer"#
        ),
        (
            #"{"clientMessageId":"nope","text":"x"}"#,
            #"invalid client message ID "nope": expected a UUID like 6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3"#
        ),
        (
            #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","text":""}"#,
            "the message text is empty or only white space; write something to send"
        ),
        (
            #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","text":" \n\t\u00a0"}"#,
            "the message text is empty or only white space; write something to send"
        ),
    ]

    @Test(
        "a message body that breaks the contract is refused with one line saying what to send", arguments: postRefusals)
    func postRefusal(body: String, message: String) {
        #expect(throws: WireRequestError(message)) { try WireRequestDecoder.postedMessage(WireFixtures.bytes(body)) }
    }

    static let positionRefusals: [(body: String, message: String)] = [
        (#"{"upToSequence":-1}"#, #""upToSequence" must be a whole number of at least 0, found a negative number"#),
        (#"{"upToSequence":"3"}"#, #""upToSequence" must be a whole number of at least 0, found a string"#),
        (#"{"upTo":3}"#, #"unknown field "upTo"; allowed: upToSequence"#),
        ("{}", #"the field "upToSequence" is missing"#),
    ]

    @Test("a position body that breaks the contract is refused", arguments: positionRefusals)
    func positionRefusal(body: String, message: String) {
        #expect(throws: WireRequestError(message)) { try WireRequestDecoder.positionRequest(WireFixtures.bytes(body)) }
    }
}
