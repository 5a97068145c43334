import ChatDomain
import ChatMatrix
import ChatTestSupport
import Testing

@testable import ChatSync

/// The Matrix client against byte-scripted servers: how each refusal becomes a ``SyncError``,
/// what the request line and headers carry, and chunked answers as Synapse sends them.
@Suite(.ownThreads) struct MatrixClientTests {
    static let token = "syt_c2VjcmV0_token"
    static let room = "!abc:example.org"

    static func client(_ server: CannedServer, timeout: Duration = .seconds(10)) -> MatrixClient {
        MatrixClient(
            server: ServerAddress(host: "127.0.0.1", port: server.port), accessToken: token, timeout: timeout)
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var reply: CannedServer.Reply
        var expected: SyncError
        var testDescription: String { name }
    }

    static let sendPath = "PUT /_matrix/client/v3/rooms/%21abc%3Aexample.org/send/m.room.message/t%2F1"

    static let cases: [Case] = [
        Case(
            name: "429 M_LIMIT_EXCEEDED waits retry_after_ms",
            reply: .json(429, #"{"errcode":"M_LIMIT_EXCEEDED","error":"Too Many Requests","retry_after_ms":1500}"#),
            expected: .temporary(
                "\(sendPath): 429 M_LIMIT_EXCEEDED: Too Many Requests",
                retryAfter: .milliseconds(1500))),
        Case(
            name: "a Retry-After header wins over retry_after_ms",
            reply: CannedServer.Reply(
                status: 429, body: Array(#"{"errcode":"M_LIMIT_EXCEEDED","retry_after_ms":1500}"#.utf8),
                headers: ["Retry-After": "7"]),
            expected: .temporary("\(sendPath): 429 M_LIMIT_EXCEEDED", retryAfter: .seconds(7))),
        Case(
            name: "M_LIMIT_EXCEEDED under another status is still a rate limit",
            reply: .json(400, #"{"errcode":"M_LIMIT_EXCEEDED","retry_after_ms":99999999999}"#),
            expected: .temporary("\(sendPath): 400 M_LIMIT_EXCEEDED", retryAfter: .seconds(3600))),
        Case(
            name: "401 M_UNKNOWN_TOKEN with soft_logout",
            reply: .json(401, #"{"errcode":"M_UNKNOWN_TOKEN","error":"Token expired","soft_logout":true}"#),
            expected: .unauthorized(
                "401 M_UNKNOWN_TOKEN: Token expired (soft logout: log in again with the same device ID)")),
        Case(
            name: "401 M_UNKNOWN_TOKEN without soft_logout",
            reply: .json(
                401, #"{"errcode":"M_UNKNOWN_TOKEN","error":"Invalid access token passed.","soft_logout":false}"#),
            expected: .unauthorized("401 M_UNKNOWN_TOKEN: Invalid access token passed.")),
        Case(
            name: "413 M_TOO_LARGE is rejected with the server's reason",
            reply: .json(413, #"{"errcode":"M_TOO_LARGE","error":"event too large"}"#),
            expected: .rejected(status: 413, message: "M_TOO_LARGE: event too large")),
        Case(
            name: "403 M_FORBIDDEN is rejected",
            reply: .json(403, #"{"errcode":"M_FORBIDDEN","error":"You are not in this room"}"#),
            expected: .rejected(status: 403, message: "M_FORBIDDEN: You are not in this room")),
        Case(
            name: "a 502 from a proxy is temporary",
            reply: .json(502, "<html>Bad Gateway</html>"),
            expected: .temporary("\(sendPath): 502 no reason given", retryAfter: nil)),
        Case(
            name: "an answer that does not decode is a contract violation naming the endpoint and field",
            reply: .json(200, #"{"event_id":"not-an-event"}"#),
            expected: .contract(
                #"\#(sendPath): event_id: not an event ID ("not-an-event"): does not start with "$""#)),
        Case(
            name: "a server that echoes the token does not get it into the error",
            reply: .json(403, #"{"errcode":"M_FORBIDDEN","error":"bad token syt_c2VjcmV0_token"}"#),
            expected: .rejected(status: 403, message: "M_FORBIDDEN: bad token <token>")),
    ]

    @Test("each refusal becomes the SyncError the worker acts on", arguments: cases)
    func errors(_ scripted: Case) async throws {
        let server = try CannedServer { _, _ in scripted.reply }
        defer { server.stop() }
        await #expect(throws: scripted.expected) {
            _ = try await Self.client(server).send(
                try MatrixRoomID(Self.room), transactionID: "t/1", content: MatrixMessageContent(body: "hi"))
        }
        #expect(server.seenRequests == [Self.sendPath])
        #expect(!scripted.expected.description.contains(Self.token))
    }

    @Test("every identifier is percent-encoded into its own path segment")
    func paths() async throws {
        let server = try CannedServer { _, path in
            if path.contains("/context/") {
                return .json(
                    200,
                    #"{"event":{"type":"m.room.message","event_id":"$e/1","sender":"@b:x","origin_server_ts":1,"content":{}}}"#
                )
            }
            if path.contains("/messages") { return .json(200, #"{"chunk":[],"start":"t1"}"#) }
            if path.contains("/join/") { return .json(200, #"{"room_id":"!abc:example.org"}"#) }
            return .json(200, "{}")
        }
        defer { server.stop() }
        let client = Self.client(server)
        let room = try MatrixRoomID(Self.room)
        let event = try MatrixEventID("$e/1")
        _ = try await client.context(room, event, limit: 3)
        _ = try await client.messages(room, from: "t 1&x", direction: .backward, limit: 20)
        try await client.receipt(room, event: event)
        try await client.typing(room, user: try MatrixUserID("@alice:example.org"), true)
        _ = try await client.join("#dinner:example.org")
        try await client.leave(room)
        #expect(
            server.seenRequests == [
                "GET /_matrix/client/v3/rooms/%21abc%3Aexample.org/context/%24e%2F1?limit=3",
                "GET /_matrix/client/v3/rooms/%21abc%3Aexample.org/messages?from=t%201%26x&dir=b&limit=20",
                "POST /_matrix/client/v3/rooms/%21abc%3Aexample.org/receipt/m.read/%24e%2F1",
                "PUT /_matrix/client/v3/rooms/%21abc%3Aexample.org/typing/%40alice%3Aexample.org",
                "POST /_matrix/client/v3/join/%23dinner%3Aexample.org",
                "POST /_matrix/client/v3/rooms/%21abc%3Aexample.org/leave",
            ])
    }

    @Test("the token is in the Authorization header only, and login sends none")
    func tokenOnlyInHeader() async throws {
        let whoami = ScriptedStream([.bytes(Array(String.answer(200, #"{"user_id":"@a:x","device_id":"D"}"#).utf8))])
        let login = ScriptedStream([
            .bytes(Array(String.answer(200, #"{"user_id":"@a:x","access_token":"new","device_id":"D"}"#).utf8))
        ])
        let scripted = ScriptedConnector([whoami, login])
        let client = MatrixClient(
            server: ServerAddress(host: "matrix.example", port: 8008), accessToken: Self.token,
            connector: scripted.connector)
        _ = try await client.whoami()
        _ = try await client.login(user: "a", password: "pw", deviceID: "D")
        let head = whoami.written.components(separatedBy: "\r\n")
        #expect(head[0] == "GET /_matrix/client/v3/account/whoami HTTP/1.1")
        #expect(head.filter { $0.contains(Self.token) } == ["Authorization: Bearer \(Self.token)"])
        #expect(login.written.hasPrefix("POST /_matrix/client/v3/login HTTP/1.1\r\n"))
        #expect(!login.written.contains("Authorization") && !login.written.contains(Self.token))
        #expect(login.written.hasSuffix(#""password":"pw","device_id":"D"}"#))
    }

    @Test("refresh sends the refresh token without the access token; logout sends the access token")
    func refreshAndLogoutHeaders() async throws {
        let refresh = ScriptedStream([
            .bytes(Array(String.answer(200, #"{"access_token":"new","refresh_token":"r2","expires_in_ms":5}"#).utf8))
        ])
        let logout = ScriptedStream([.bytes(Array(String.answer(200, "{}").utf8))])
        let scripted = ScriptedConnector([refresh, logout])
        let client = MatrixClient(
            server: ServerAddress(host: "matrix.example", port: 8008), accessToken: Self.token,
            connector: scripted.connector)
        let renewed = try await client.refresh("r1")
        #expect(renewed.accessToken == "new" && renewed.refreshToken == "r2" && renewed.expiresInMilliseconds == 5)
        try await client.logout()
        #expect(refresh.written.hasPrefix("POST /_matrix/client/v3/refresh HTTP/1.1\r\n"))
        #expect(!refresh.written.contains("Authorization") && !refresh.written.contains(Self.token))
        #expect(refresh.written.hasSuffix(#"{"refresh_token":"r1"}"#))
        #expect(logout.written.hasPrefix("POST /_matrix/client/v3/logout HTTP/1.1\r\n"))
        #expect(logout.written.contains("Authorization: Bearer \(Self.token)\r\n"))
    }

    @Test("a chunked answer, as Synapse sends one, is read whole")
    func chunked() async throws {
        let json = #"{"joined_rooms":["!v73pvSetDteasFd3kTpGE8WOQ_10F39YkTerUExr3Jc"]}"#
        let half = json.utf8.count / 2
        let body =
            String(half, radix: 16) + "\r\n" + String(json.prefix(half)) + "\r\n"
            + String(json.utf8.count - half, radix: 16) + "\r\n" + String(json.dropFirst(half)) + "\r\n0\r\n\r\n"
        let answer = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n" + body
        let scripted = ScriptedConnector([ScriptedStream(Array(answer.utf8).map { .bytes([$0]) })])
        let client = MatrixClient(
            server: ServerAddress(host: "matrix.example", port: 8008), accessToken: Self.token,
            connector: scripted.connector)
        #expect(try await client.joinedRooms().map(\.rawValue) == ["!v73pvSetDteasFd3kTpGE8WOQ_10F39YkTerUExr3Jc"])
    }

    @Test("a long-poll /sync's deadline is the request timeout on top of the server's wait")
    func longPollDeadline() async throws {
        // The answer takes about 0.6 s to trickle in: past the 0.2 s request timeout, well
        // within the 5 s wait the client asked the server for.
        let server = try CannedServer { _, _ in
            var reply = CannedServer.Reply.json(200, #"{"next_batch":"s2"}"#)
            reply.trickle = .milliseconds(10)
            return reply
        }
        defer { server.stop() }
        let sync = try await Self.client(server, timeout: .milliseconds(200)).sync(since: "s1", wait: .seconds(5))
        #expect(sync.nextBatch == "s2")
        #expect(server.seenRequests == ["GET /_matrix/client/v3/sync?since=s1&timeout=5000"])
    }

    @Test("a negative or huge wait is taken as none or an hour, never overflowing the milliseconds")
    func waitBounds() async throws {
        let server = try CannedServer { _, _ in .json(200, #"{"next_batch":"s2"}"#) }
        defer { server.stop() }
        let client = Self.client(server)
        _ = try await client.sync(since: nil, wait: .seconds(-5))
        _ = try await client.sync(since: nil, wait: .seconds(Int64.max))
        #expect(
            server.seenRequests == [
                "GET /_matrix/client/v3/sync?timeout=0", "GET /_matrix/client/v3/sync?timeout=3600000",
            ])
    }
}
