import ChatDomain
import ChatProtocol
import Testing

/// `POST …/typing` and the live typing event: their bytes, and what the decoders refuse.
@Suite struct TypingWireTests {
    @Test("the typing event has the bytes docs/PROTOCOL.md shows and reads back unchanged")
    func eventBytes() throws {
        let event = LiveEvent.typing(try ConversationID("c1"), try UserID("alice"))
        let text = WireEncoder.liveEvent(event)
        #expect(text == #"{"type":"typing","conversationId":"c1","userId":"alice"}"#)
        #expect(try WireDecoder.liveEvent(text) == event)
        // Key order is the writer's business, not the reader's.
        #expect(try WireDecoder.liveEvent(#"{"userId":"alice","conversationId":"c1","type":"typing"}"#) == event)
    }

    @Test(
        "a malformed typing event is refused, naming what is wrong",
        arguments: [
            (#"{"type":"typing","conversationId":"c1"}"#, "\"userId\" must be a string, found nothing"),
            (#"{"type":"typing","conversationId":"c1","userId":7}"#, "\"userId\" must be a string"),
            (#"{"type":"typing","conversationId":"c1","userId":"../etc"}"#, "a typing event: "),
            (#"{"type":"typing","conversationId":"c1","userId":""}"#, "a typing event: "),
            (#"{"type":"typing","conversationId":"../x","userId":"bob"}"#, "a live event: "),
            (#"{"type":"typing","userId":"bob"}"#, "\"conversationId\" must be a string"),
            (#"["typing"]"#, "must be an object"),
        ])
    func malformed(text: String, words: String) {
        do {
            let event = try WireDecoder.liveEvent(text)
            Issue.record("accepted \(text) as \(String(describing: event))")
        } catch {
            guard case .contract(let message) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(message.contains(words), "\(message)")
        }
    }

    @Test("the typing endpoint is POST /v1/conversations/{id}/typing; GET there is a 405")
    func endpoint() throws {
        let c1 = try ConversationID("c1")
        #expect(Endpoint.typing(c1).method == "POST")
        #expect(Endpoint.typing(c1).path == "/v1/conversations/c1/typing")
        #expect(Endpoint(method: "POST", path: "/v1/conversations/c1/typing") == .typing(c1))
        #expect(
            Endpoint.resolve(method: "GET", path: "/v1/conversations/c1/typing")
                == .methodNotAllowed(method: "GET", allowed: ["POST"]))
    }

    @Test("a typing request's body is empty or {}", arguments: ["", "{}", " { } "])
    func acceptedBodies(body: String) throws {
        try WireRequestDecoder.typingRequest(Array(body.utf8))
    }

    @Test(
        "any other typing body is refused with a reason",
        arguments: [
            (#"{"typing":true}"#, #"unknown field "typing"; this body takes none, send {} or nothing"#),
            ("[]", "the body is an array; send a JSON object"),
            ("not json", "the body is not valid JSON"),
        ])
    func refusedBodies(body: String, message: String) {
        #expect(throws: (any Error).self) { try WireRequestDecoder.typingRequest(Array(body.utf8)) }
        do {
            try WireRequestDecoder.typingRequest(Array(body.utf8))
        } catch {
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
    }
}
