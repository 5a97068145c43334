import ChatDomain
import ChatServer
import ChatTestSupport
import ChatWire
import Foundation
import Testing

/// `POST …/typing`: fanned out to the other members' live sockets, never to the sender's, and
/// never stored.
@Suite(.ownThreads) struct TypingTests {
    @Test("alice's typing reaches bob's and carol's sockets, none of hers, and leaves the conversation unchanged")
    func fanOutToOthersOnly() throws {
        let server = try TestServer()
        let client = try server.client()
        _ = try client.post("group", id: UUID().uuidString, text: "before", as: "bob")
        let before = try client.request("GET", "/v1/conversations/group/messages?after=0")
        let aliceLaptop = try server.live("alice")
        let alicePhone = try server.live("alice")
        let bob = try server.live("bob")
        let carol = try server.live("carol")

        let typing = try client.request(
            "POST", "/v1/conversations/group/typing", token: TestData.token("alice"), body: "{}")
        #expect(typing.status == 204)
        #expect(typing.body.isEmpty)
        let expected = try JSONParser.parse(#"{"type":"typing","conversationId":"group","userId":"alice"}"#)
        for socket in [bob, carol] {
            #expect(try socket.nextJSON() == expected)
        }
        // An empty body is as good as {}.
        #expect(
            try client.request("POST", "/v1/conversations/group/typing", token: TestData.token("alice")).status == 204)
        #expect(try bob.nextJSON() == expected)

        // alice's sockets got nothing from her typing: the next thing each hears is bob's message.
        _ = try client.post("group", id: UUID().uuidString, text: "after", as: "bob")
        for socket in [aliceLaptop, alicePhone] {
            let event = try #require(try socket.nextJSON())
            #expect(event["type"].string == "message", "\(event)")
            #expect(event["message"]?["text"].string == "after")
        }
        // Nothing was stored: the catch-up holds what it held, plus bob's second message only.
        let after = try client.request("GET", "/v1/conversations/group/messages?after=0")
        let texts = after.json["items"].array.compactMap { $0["text"].string }
        #expect(texts == ["before", "after"], "\(after.json)")
        #expect(before.json["items"].array.count == 1)
    }

    @Test(
        "a non-member gets the same 403 as for messages, an unknown conversation the same 404, and no one hears anything"
    )
    func nonMember() throws {
        let server = try TestServer()
        let client = try server.client()
        let bob = try server.live("bob")
        let typing = try client.request(
            "POST", "/v1/conversations/ab/typing", token: TestData.token("carol"), body: "{}")
        let message = try client.post("ab", id: UUID().uuidString, text: "x", as: "carol")
        #expect(typing.status == 403)
        #expect(typing.body == message.body)
        let unknownTyping = try client.request(
            "POST", "/v1/conversations/nope/typing", token: TestData.token("carol"), body: "{}")
        let unknownMessage = try client.post("nope", id: UUID().uuidString, text: "x", as: "carol")
        #expect(unknownTyping.status == 404)
        #expect(unknownTyping.body == unknownMessage.body)
        // bob's next event is alice's real message, not carol's refused typing.
        _ = try client.post("ab", id: UUID().uuidString, text: "real", as: "alice")
        #expect(try bob.nextJSON()?["type"].string == "message")
    }

    @Test("a typing body with fields is a 400 and nothing is sent")
    func badBody() throws {
        let server = try TestServer()
        let client = try server.client()
        let bob = try server.live("bob")
        let response = try client.request(
            "POST", "/v1/conversations/ab/typing", token: TestData.token("alice"), body: #"{"typing":true}"#)
        #expect(response.status == 400)
        #expect(response.json["error"].string?.contains("typing") == true)
        _ = try client.post("ab", id: UUID().uuidString, text: "real", as: "alice")
        #expect(try bob.nextJSON()?["type"].string == "message")
    }
}
