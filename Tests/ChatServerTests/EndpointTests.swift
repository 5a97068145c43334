import ChatDomain
import ChatTestSupport
import Foundation
import Testing

/// Every endpoint of wire v1 with its success and error statuses, through a real socket.
@Suite(.ownThreads) struct EndpointTests {
    static func uuid() -> String { UUID().uuidString }

    @Test("GET /v1/me names the token's user; no token or an unknown one is 401")
    func me() throws {
        let server = try TestServer()
        let client = try server.client()
        let ok = try client.request("GET", "/v1/me")
        #expect(ok.status == 200)
        #expect(ok.text == #"{"userId":"alice"}"#)
        #expect(ok.headers["Content-Type"]?.hasPrefix("application/json") == true)

        let missing = try client.request("GET", "/v1/me", token: nil)
        #expect(missing.status == 401)
        #expect(missing.headers["WWW-Authenticate"] == "Bearer")
        #expect(missing.json["error"].string?.contains("Authorization: Bearer") == true)

        let unknown = try client.request("GET", "/v1/me", token: "nobody-token")
        #expect(unknown.status == 401)
        let notBearer = try client.request(
            "GET", "/v1/me", token: nil, headers: [("Authorization", "Basic YWxpY2U6eA==")])
        #expect(notBearer.status == 401)
    }

    @Test("GET /v1/conversations lists only the user's conversations, with members and lastSequence")
    func conversations() throws {
        let server = try TestServer()
        let client = try server.client()
        #expect(try client.post("ab", id: Self.uuid(), text: "hi").status == 201)

        let alice = try client.request("GET", "/v1/conversations")
        #expect(alice.status == 200)
        #expect(
            alice.text
                == #"{"items":[{"id":"ab","lastSequence":1,"members":["alice","bob"],"title":"Alice and Bob"},{"id":"group","lastSequence":0,"members":["alice","bob","carol"],"title":"Group"}]}"#
        )

        let carol = try client.request("GET", "/v1/conversations", token: TestData.token("carol"))
        #expect(carol.json["items"].array.map { $0["id"].string } == ["group"])
        let dave = try client.request("GET", "/v1/conversations", token: TestData.token("dave"))
        #expect(dave.text == #"{"items":[]}"#)
        #expect(try client.request("GET", "/v1/conversations", token: nil).status == 401)
    }

    @Test("POST a message: 201 with sequence and sentAt, then the same clientMessageId is 200 with the same message")
    func postIsIdempotent() throws {
        let server = try TestServer()
        let client = try server.client()
        let id = Self.uuid()
        let first = try client.post("ab", id: id, text: "On my way")
        #expect(first.status == 201)
        #expect(first.json["sequence"].int == 1)
        #expect(first.json["senderId"].string == "alice")
        #expect(first.json["clientMessageId"].string == id)
        #expect(first.json["sentAt"].string?.hasSuffix("Z") == true)

        let again = try client.post("ab", id: id, text: "On my way")
        #expect(again.status == 200)
        #expect(again.body == first.body)
        // Even with another text: the ID decides, the first message stands.
        let changed = try client.post("ab", id: id, text: "something else")
        #expect(changed.status == 200)
        #expect(changed.body == first.body)

        let page = try client.request("GET", "/v1/conversations/ab/messages")
        #expect(page.json["items"].array.count == 1)
        #expect(try client.post("ab", id: Self.uuid(), text: "second").json["sequence"].int == 2)
    }

    @Test("GET messages pages with after, before and newest; hasMore says whether more exist that way")
    func paging() throws {
        let server = try TestServer()
        let client = try server.client()
        for index in 1...12 {
            #expect(try client.post("ab", id: Self.uuid(), text: "message \(index)").status == 201)
        }
        func sequences(_ query: String) throws -> ([Int], Bool?) {
            let response = try client.request(
                "GET", "/v1/conversations/ab/messages\(query)", token: TestData.token("bob"))
            #expect(response.status == 200, "\(query): \(response.text)")
            return (response.json["items"].array.compactMap { $0["sequence"].int }, response.json["hasMore"].bool)
        }
        #expect(try sequences("?after=3&limit=4") == ([4, 5, 6, 7], true))
        #expect(try sequences("?after=8&limit=4") == ([9, 10, 11, 12], false))
        #expect(try sequences("?after=12") == ([], false))
        #expect(try sequences("?before=6&limit=3") == ([3, 4, 5], true))
        #expect(try sequences("?before=3&limit=5") == ([1, 2], false))
        #expect(try sequences("?limit=2") == ([11, 12], true))
        #expect(try sequences("") == (Array(1...12), false))
        #expect(try sequences("?after=0&limit=500").0.count == 12)
    }

    @Test(
        "GET messages rejects bad queries with 400",
        arguments: [
            "?limit=0", "?limit=501", "?after=-1", "?after=abc", "?before=0", "?after=1&before=5", "?since=3",
            "?limit=", "?after=99999999999999999999",
        ])
    func badQueries(query: String) throws {
        let server = try TestServer()
        let response = try server.client().request("GET", "/v1/conversations/ab/messages\(query)")
        #expect(response.status == 400, "\(query)")
        #expect(response.json["error"].string?.isEmpty == false)
    }

    @Test(
        "a conversation endpoint answers 404 unknown, 403 non-member, 400 invalid ID, 401 without token",
        arguments: [
            ("GET", "messages", nil as String?),
            ("POST", "messages", #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","text":"x"}"#),
            ("GET", "receipts", nil), ("POST", "delivered", #"{"upToSequence":1}"#),
            ("POST", "read", #"{"upToSequence":1}"#),
            ("POST", "typing", "{}"),
        ])
    func conversationErrors(method: String, endpoint: String, body: String?) throws {
        let server = try TestServer()
        let client = try server.client()
        #expect(try client.request(method, "/v1/conversations/nope/\(endpoint)", body: body).status == 404)
        #expect(
            try client.request(method, "/v1/conversations/ab/\(endpoint)", token: TestData.token("carol"), body: body)
                .status == 403)
        #expect(try client.request(method, "/v1/conversations/..%2Fetc/\(endpoint)", body: body).status == 400)
        #expect(try client.request(method, "/v1/conversations/.hidden/\(endpoint)", body: body).status == 400)
        #expect(try client.request(method, "/v1/conversations/ab/\(endpoint)", token: nil, body: body).status == 401)
        #expect(
            try client.request(method, "/v1/conversations/ab/\(endpoint)", token: "wrong", body: body).status == 401)
    }

    @Test(
        "POST messages rejects bad bodies with 400 and accepts nothing",
        arguments: [
            "", "not json", "[]", #"{"text":"hi"}"#, #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3"}"#,
            #"{"clientMessageId":"not-a-uuid","text":"hi"}"#,
            #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","text":""}"#,
            #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","text":42}"#,
            #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","text":"hi","extra":1}"#,
            #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","text":"hi","text":"twice"}"#,
            #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","text":"\ud800"}"#,
        ])
    func badMessageBodies(body: String) throws {
        let server = try TestServer()
        let client = try server.client()
        let response = try client.request("POST", "/v1/conversations/ab/messages", body: body)
        #expect(response.status == 400, "\(body): \(response.text)")
        #expect(response.json["error"].string?.isEmpty == false)
        #expect(try client.request("GET", "/v1/conversations/ab/messages").json["items"].array.isEmpty)
    }

    @Test("text of 4096 characters is accepted, 4097 is 400; a body over the limit is 413")
    func textLimits() throws {
        let server = try TestServer()
        let client = try server.client()
        // Characters, not bytes: 4096 two-byte characters pass.
        #expect(try client.post("ab", id: Self.uuid(), text: String(repeating: "é", count: 4096)).status == 201)
        let tooLong = try client.post("ab", id: Self.uuid(), text: String(repeating: "a", count: 4097))
        #expect(tooLong.status == 400)
        #expect(tooLong.json["error"].string?.contains("4097") == true)
        let huge = try client.post("ab", id: Self.uuid(), text: String(repeating: "a", count: 70_000))
        #expect(huge.status == 413)
        #expect(client.closes())
    }

    @Test(
        "receipts list every member; delivered and read move forward only, clamp to lastSequence, read raises delivered"
    )
    func positions() throws {
        let server = try TestServer()
        let client = try server.client()
        for _ in 1...5 { _ = try client.post("group", id: Self.uuid(), text: "x") }
        let bob = TestData.token("bob")
        let empty = try client.request("GET", "/v1/conversations/group/receipts")
        #expect(
            empty.text
                == #"{"members":[{"deliveredUpTo":0,"readUpTo":0,"userId":"alice"},{"deliveredUpTo":0,"readUpTo":0,"userId":"bob"},{"deliveredUpTo":0,"readUpTo":0,"userId":"carol"}]}"#
        )

        #expect(
            try client.request("POST", "/v1/conversations/group/delivered", token: bob, body: #"{"upToSequence":4}"#)
                .text == #"{"deliveredUpTo":4}"#)
        #expect(
            try client.request("POST", "/v1/conversations/group/delivered", token: bob, body: #"{"upToSequence":2}"#)
                .text == #"{"deliveredUpTo":4}"#)
        #expect(
            try client.request("POST", "/v1/conversations/group/read", token: bob, body: #"{"upToSequence":3}"#).text
                == #"{"readUpTo":3}"#)
        #expect(
            try client.request("POST", "/v1/conversations/group/read", token: bob, body: #"{"upToSequence":99}"#).text
                == #"{"readUpTo":5}"#)
        #expect(
            try client.request("POST", "/v1/conversations/group/read", token: bob, body: #"{"upToSequence":1}"#).text
                == #"{"readUpTo":5}"#)
        let receipts = try client.request("GET", "/v1/conversations/group/receipts", token: TestData.token("carol"))
        #expect(receipts.json["members"].array[1]["deliveredUpTo"].int == 5)
        #expect(receipts.json["members"].array[1]["readUpTo"].int == 5)

        for body in [
            "", "{}", #"{"upToSequence":-1}"#, #"{"upToSequence":"3"}"#, #"{"upToSequence":1.5}"#,
            #"{"upToSequence":1,"x":2}"#,
        ] {
            #expect(
                try client.request("POST", "/v1/conversations/group/read", token: bob, body: body).status == 400,
                "\(body)")
        }
    }

    @Test("an unknown path is 404, a wrong method 405 with Allow")
    func routing() throws {
        let server = try TestServer()
        let client = try server.client()
        #expect(try client.request("GET", "/v2/me").status == 404)
        #expect(try client.request("GET", "/v1/conversations/ab/other").status == 404)
        #expect(try client.request("GET", "/v1/me/").status == 404)
        let wrong = try client.request("DELETE", "/v1/conversations/ab/messages")
        #expect(wrong.status == 405)
        #expect(wrong.headers["Allow"] == "GET, POST")
        #expect(try client.request("POST", "/v1/me", body: "{}").headers["Allow"] == "GET")
        #expect(try client.request("GET", "/v1/conversations/ab/read").status == 405)
    }

    @Test("one keep-alive connection serves pipelined requests in order")
    func pipelining() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.send(
            TestHTTPClient.requestBytes("GET", "/v1/me")
                + TestHTTPClient.requestBytes("GET", "/v1/me", token: TestData.token("bob")))
        #expect(try client.readResponse().text == #"{"userId":"alice"}"#)
        #expect(try client.readResponse().text == #"{"userId":"bob"}"#)
        let closing = try client.request("GET", "/v1/me", headers: [("Connection", "close")])
        #expect(closing.headers["Connection"] == "close")
        #expect(client.closes())
    }
}
