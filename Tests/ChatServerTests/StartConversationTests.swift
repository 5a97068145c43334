import ChatDomain
import ChatServer
import ChatTestSupport
import ChatWire
import Foundation
import Testing

/// `POST /v1/conversations` (a v1 extension): 201 with the list's item, 409 for a taken ID,
/// 400 for bad bodies and unknown users, 403 when the creator is not a member; durable, listed
/// at once for the other members, announced on their live sockets.
@Suite(.ownThreads) struct StartConversationTests {
    static let dinner = #"{"id":"dinner","title":"Dinner","members":["alice","bob","carol"]}"#

    @Test(
        "a start is answered 201 with the conversation as the list shows it, listed for bob at once and announced on his socket"
    )
    func startsAndAnnounces() throws {
        let server = try TestServer()
        let client = try server.client()
        let bob = try server.live("bob")
        let response = try client.request(
            "POST", "/v1/conversations", token: TestData.token("alice"), body: Self.dinner)
        #expect(response.status == 201)
        let expected = try JSONParser.parse(
            #"{"id":"dinner","lastSequence":0,"members":["alice","bob","carol"],"title":"Dinner"}"#)
        #expect(response.json == expected)
        let event = try #require(try bob.nextJSON())
        #expect(
            event
                == (try JSONParser.parse(
                    #"{"type":"conversation","conversationId":"dinner","title":"Dinner","members":["alice","bob","carol"]}"#
                )))
        let list = try client.request("GET", "/v1/conversations", token: TestData.token("bob"))
        #expect(list.json["items"].array.contains(expected), "\(list.json)")
        let daves = try client.request("GET", "/v1/conversations", token: TestData.token("dave"))
        #expect(daves.json["items"].array.isEmpty)
        let posted = try client.post("dinner", id: UUID().uuidString, text: "hello", as: "carol")
        #expect(posted.status == 201)
    }

    @Test("a taken ID is a 409 whoever asks, and changes nothing")
    func takenIDConflicts() throws {
        let server = try TestServer()
        let client = try server.client()
        #expect(
            try client.request("POST", "/v1/conversations", token: TestData.token("alice"), body: Self.dinner).status
                == 201)
        let again = try client.request("POST", "/v1/conversations", token: TestData.token("alice"), body: Self.dinner)
        #expect(again.status == 409)
        #expect(again.json["error"].string?.contains("exists already") == true, "\(again.json)")
        let other = #"{"id":"ab","title":"Mine","members":["carol","dave"]}"#
        #expect(
            try client.request("POST", "/v1/conversations", token: TestData.token("carol"), body: other).status == 409)
        let list = try client.request("GET", "/v1/conversations", token: TestData.token("alice"))
        #expect(list.json["items"].array.first?["title"].string == "Alice and Bob")
    }

    @Test("eight starts of one ID at once make one conversation: one 201, seven 409")
    func racingStarts() throws {
        let server = try TestServer()
        let port = server.port
        let statuses = try concurrently(8) { _ in
            try TestHTTPClient(port: port).request(
                "POST", "/v1/conversations", token: TestData.token("alice"), body: Self.dinner
            ).status
        }
        #expect(statuses.sorted() == [201] + Array(repeating: 409, count: 7))
    }

    @Test("a start survives a restart of the server", .timeLimit(.minutes(2)))
    func durable() throws {
        let server = try TestServer()
        #expect(
            try server.client().request("POST", "/v1/conversations", token: TestData.token("alice"), body: Self.dinner)
                .status == 201)
        _ = try server.client().post("dinner", id: UUID().uuidString, text: "kept", as: "bob")
        try server.restart()
        let client = try server.client()
        let list = try client.request("GET", "/v1/conversations", token: TestData.token("carol"))
        #expect(list.json["items"].array.compactMap { $0["id"].string } == ["dinner", "group"])
        let page = try client.request(
            "GET", "/v1/conversations/dinner/messages?after=0", token: TestData.token("carol"))
        #expect(page.json["items"].array.compactMap { $0["text"].string } == ["kept"])
        let names = try FileManager.default.contentsOfDirectory(atPath: server.directory.path + "/conversations")
        #expect(names.sorted() == ["ab", "dinner", "group"], "no temp directory is left")
    }

    @Test(
        "refused bodies",
        arguments: [
            (#"{"id":"../x","title":"T","members":["alice"]}"#, 400, "../x"),
            (#"{"id":"d","title":"T","members":["alice","zed"]}"#, 400, "zed"),
            (#"{"id":"d","title":"T","members":["alice","alice"]}"#, 400, "twice"),
            (#"{"id":"d","title":"T","members":[]}"#, 400, "empty"),
            (#"{"id":"d","title":"   ","members":["alice"]}"#, 400, "title"),
            (#"{"id":"d","title":"a\nb","members":["alice"]}"#, 400, "one line"),
            (#"{"id":"d","title":"T","members":["alice"],"x":1}"#, 400, "\"x\""),
            (#"{"id":"d","title":"T","members":[7]}"#, 400, "members[0]"),
            (#"[]"#, 400, "object"),
            (#"{"id":"d","title":"T","members":["bob","carol"]}"#, 403, "alice is not among the members"),
        ])
    func refused(body: String, status: Int, words: String) throws {
        let server = try TestServer()
        let client = try server.client()
        let response = try client.request("POST", "/v1/conversations", token: TestData.token("alice"), body: body)
        #expect(response.status == status)
        #expect(response.json["error"].string?.contains(words) == true, "\(response.json)")
        let list = try client.request("GET", "/v1/conversations", token: TestData.token("bob"))
        #expect(list.json["items"].array.count == 2, "nothing was started")
    }

    @Test("the route table now allows GET and POST on /v1/conversations, and a POST needs a token")
    func routes() throws {
        let server = try TestServer()
        let client = try server.client()
        let delete = try client.request("DELETE", "/v1/conversations", token: TestData.token("alice"))
        #expect(delete.status == 405)
        #expect(delete.headers.values(for: "Allow") == ["GET, POST"])
        #expect(try client.request("POST", "/v1/conversations", token: nil, body: Self.dinner).status == 401)
    }
}
