import ChatDomain
import ChatProtocol
import Testing

@Suite struct EndpointTests {
    static func all() throws -> [Endpoint] {
        let c1 = try ConversationID("c1")
        return [
            .me, .conversations, .createConversation, .messages(c1), .postMessage(c1), .receipts(c1), .delivered(c1),
            .read(c1), .typing(c1), .live,
        ]
    }

    @Test("every endpoint's method and path resolve back to it")
    func roundTrip() throws {
        let endpoints = try Self.all()
        #expect(Set(endpoints.map(\.kind)) == Set(Endpoint.Kind.allCases), "a kind is missing from this test")
        for endpoint in endpoints {
            #expect(
                Endpoint(method: endpoint.method, path: endpoint.path) == endpoint,
                "\(endpoint.method) \(endpoint.path)")
        }
    }

    @Test("the client's request lines are those of wire-v1.md")
    func requestLines() throws {
        let lines = try Self.all().map { "\($0.method) \($0.path)" }
        #expect(
            lines == [
                "GET /v1/me", "GET /v1/conversations", "POST /v1/conversations", "GET /v1/conversations/c1/messages",
                "POST /v1/conversations/c1/messages",
                "GET /v1/conversations/c1/receipts", "POST /v1/conversations/c1/delivered",
                "POST /v1/conversations/c1/read",
                "POST /v1/conversations/c1/typing", "GET /v1/live",
            ])
    }

    @Test("a percent-encoded path names the same endpoint")
    func percentDecoded() throws {
        #expect(Endpoint(method: "GET", path: "/v1/m%65") == .me)
        #expect(Endpoint(method: "POST", path: "/v1/conversations/%63%31/read") == .read(try ConversationID("c1")))
    }

    static let notFound: [(path: String, message: String)] = [
        ("/v2/me", #"no endpoint "/v2/me"; see docs/PROTOCOL.md for the endpoints of wire v1"#),
        ("/v1/me/", #"no endpoint "/v1/me/"; see docs/PROTOCOL.md for the endpoints of wire v1"#),
        (
            "/v1/conversations/c1",
            #"no endpoint "/v1/conversations/c1"; see docs/PROTOCOL.md for the endpoints of wire v1"#
        ),
        (
            "/v1/conversations/c1/members",
            #"no endpoint "/v1/conversations/c1/members"; a conversation has messages, receipts, delivered, read and typing"#
        ),
        ("", #"no endpoint ""; see docs/PROTOCOL.md for the endpoints of wire v1"#),
    ]

    @Test("a path wire v1 does not have is a 404 whose message says what exists", arguments: notFound)
    func notFoundMessages(path: String, message: String) {
        guard case .notFound(let foundPath, let hint) = Endpoint.resolve(method: "GET", path: path) else {
            Issue.record("\(Endpoint.resolve(method: "GET", path: path))")
            return
        }
        #expect(Endpoint.notFoundMessage(path: foundPath, hint: hint) == message)
        #expect(Endpoint(method: "GET", path: path) == nil)
    }

    static let wrongMethods: [(method: String, path: String, allowed: [String], message: String)] = [
        ("POST", "/v1/me", ["GET"], "POST is not allowed here; use GET"),
        ("DELETE", "/v1/conversations/c1/messages", ["GET", "POST"], "DELETE is not allowed here; use GET or POST"),
        ("GET", "/v1/conversations/c1/read", ["POST"], "GET is not allowed here; use POST"),
        ("POST", "/v1/live", ["GET"], "POST is not allowed here; use GET"),
        ("HEAD", "/v1/conversations/../receipts", ["GET"], "HEAD is not allowed here; use GET"),
    ]

    @Test("a known path with another method is a 405 that names the allowed ones", arguments: wrongMethods)
    func methodNotAllowed(method: String, path: String, allowed: [String], message: String) {
        #expect(Endpoint.resolve(method: method, path: path) == .methodNotAllowed(method: method, allowed: allowed))
        #expect(Endpoint.Resolution.methodNotAllowedMessage(method, allowed: allowed) == message)
    }

    @Test("a conversation ID that is not a valid name is refused as a parameter, never used as a path")
    func invalidConversationID() {
        guard
            case .invalidParameter(let error) = Endpoint.resolve(
                method: "GET", path: "/v1/conversations/..%2Fetc/messages")
        else {
            Issue.record("\(Endpoint.resolve(method: "GET", path: "/v1/conversations/..%2Fetc/messages"))")
            return
        }
        #expect(error == .invalidConversationID("../etc", reason: "must start with a letter or digit"))
    }
}
