import ChatTestSupport
import Testing

@testable import ChatWire

@Suite(.ownThreads) struct WebSocketHandshakeTests {
    static let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="
    static let sampleAccept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="

    @Test("The accept value for the RFC 6455 §1.3 sample key matches the RFC")
    func rfcSample() {
        #expect(WebSocketHandshake.acceptValue(forKey: Self.sampleKey) == Self.sampleAccept)
    }

    @Test("Fresh keys are base64 of 16 bytes and differ")
    func freshKeys() {
        let keys = (0..<8).map { _ in WebSocketHandshake.makeKey() }
        #expect(keys.allSatisfy { Base64.decode($0)?.count == 16 })
        #expect(Set(keys).count == keys.count)
    }

    @Test("The client's request is a GET upgrade carrying the key, version 13 and extra headers")
    func clientRequest() throws {
        let handshake = WebSocketClientHandshake(
            host: "chat.example:8080",
            target: HTTPRequestTarget("/v1/live"),
            headers: ["Authorization": "Bearer t0k"],
            key: Self.sampleKey
        )
        let expected =
            "GET /v1/live HTTP/1.1\r\nHost: chat.example:8080\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: \(Self.sampleKey)\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer t0k\r\n\r\n"
        #expect(String(decoding: try handshake.request.serialized(), as: UTF8.self) == expected)
    }

    @Test("The server accepts the client's request and the client accepts the server's 101")
    func roundTrip() throws {
        let client = WebSocketClientHandshake(host: "h", target: HTTPRequestTarget("/v1/live"))
        var requestParser = HTTPRequestParser()
        requestParser.feed(try client.request.serialized())
        let request = try #require(try requestParser.nextRequest())

        let response = try WebSocketServerHandshake.accept(request, headers: ["X-Server": "chatdir"])
        #expect(response.status.code == 101)
        #expect(response.headers["X-Server"] == "chatdir")

        var responseParser = HTTPResponseHeadParser()
        responseParser.feed(try response.serialized())
        let parsed = try #require(try responseParser.parse())
        try client.validate(parsed.head)
    }

    @Test("The server's 101 carries the RFC sample accept value and no Content-Length")
    func serverResponse() throws {
        let response = try WebSocketServerHandshake.accept(Self.upgradeRequest())
        let expected =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(Self.sampleAccept)\r\n\r\n"
        #expect(String(decoding: try response.serialized(), as: UTF8.self) == expected)
    }

    @Test(
        "Upgrade and Connection are matched token by token, ignoring case",
        arguments: [
            ("websocket", "Upgrade"),
            ("WebSocket", "keep-alive, Upgrade"),
            ("h2c, websocket", "upgrade,keep-alive"),
        ])
    func tokenMatching(upgrade: String, connection: String) throws {
        var request = Self.upgradeRequest()
        request.headers.remove(name: "Upgrade")
        request.headers.remove(name: "Connection")
        request.headers.add(name: "Upgrade", value: upgrade)
        request.headers.add(name: "Connection", value: connection)
        #expect(throws: Never.self) { try WebSocketServerHandshake.accept(request) }

        let head = HTTPResponseHead(
            status: .switchingProtocols,
            headers: [
                "Upgrade": upgrade, "Connection": connection, "Sec-WebSocket-Accept": Self.sampleAccept,
            ])
        #expect(throws: Never.self) { try Self.sampleClient.validate(head) }
    }

    static func upgradeRequest(_ change: (inout HTTPRequest) -> Void = { _ in }) -> HTTPRequest {
        var request = HTTPRequest(
            method: "GET", target: HTTPRequestTarget("/v1/live"),
            headers: [
                "Host": "h", "Upgrade": "websocket", "Connection": "Upgrade",
                "Sec-WebSocket-Key": sampleKey, "Sec-WebSocket-Version": "13",
            ])
        change(&request)
        return request
    }

    static func replacing(_ name: String, with values: [String]) -> HTTPRequest {
        upgradeRequest { request in
            request.headers.remove(name: name)
            for value in values { request.headers.add(name: name, value: value) }
        }
    }

    @Test(
        "Requests that are not a valid upgrade get the status and headers to answer with",
        arguments: [
            (
                upgradeRequest { $0.method = "POST" }, 405, #"a WebSocket upgrade must use GET, not "POST""#,
                ["Allow": "GET"]
            ),
            (upgradeRequest { $0.version = .http1_0 }, 400, "a WebSocket upgrade needs HTTP/1.1, not HTTP/1.0", [:]),
            (replacing("Upgrade", with: []), 400, "a WebSocket upgrade needs Upgrade: websocket", [:]),
            (replacing("Upgrade", with: ["websockets"]), 400, "a WebSocket upgrade needs Upgrade: websocket", [:]),
            (replacing("Connection", with: ["keep-alive"]), 400, "a WebSocket upgrade needs Connection: upgrade", [:]),
            (replacing("Connection", with: ["Upgraded"]), 400, "a WebSocket upgrade needs Connection: upgrade", [:]),
            (
                replacing("Sec-WebSocket-Version", with: ["8"]), 426,
                #"Sec-WebSocket-Version "8" is not supported; send Sec-WebSocket-Version: 13"#,
                ["Sec-WebSocket-Version": "13"]
            ),
            (
                replacing("Sec-WebSocket-Version", with: []), 426,
                "no Sec-WebSocket-Version is not supported; send Sec-WebSocket-Version: 13",
                ["Sec-WebSocket-Version": "13"]
            ),
            (
                replacing("Sec-WebSocket-Key", with: []), 400,
                "no Sec-WebSocket-Key; send one key that is base64 of 16 random bytes", [:]
            ),
            (
                replacing("Sec-WebSocket-Key", with: ["c2hvcnQ="]), 400,
                #"Sec-WebSocket-Key "c2hvcnQ="; send one key that is base64 of 16 random bytes"#, [:]
            ),
            (
                replacing("Sec-WebSocket-Key", with: ["not base64!!!!!!!!!!!!!!"]), 400,
                #"Sec-WebSocket-Key "not base64!!!!!!!!!!!!!!"; send one key that is base64 of 16 random bytes"#, [:]
            ),
            (
                replacing("Sec-WebSocket-Key", with: [sampleKey, sampleKey]), 400,
                #"Sec-WebSocket-Key "dGhlIHNhbXBsZSBub25jZQ==", "dGhlIHNhbXBsZSBub25jZQ=="; send one key that is base64 of 16 random bytes"#,
                [:]
            ),
        ] as [(HTTPRequest, Int, String, HTTPHeaders)])
    func serverRejects(request: HTTPRequest, status: Int, message: String, headers: HTTPHeaders) {
        #expect {
            try WebSocketServerHandshake.accept(request)
        } throws: { error in
            let error = error as? WebSocketUpgradeError
            return error?.status.code == status && error?.message == message && error?.headers == headers
        }
    }

    static let sampleClient = WebSocketClientHandshake(host: "h", target: HTTPRequestTarget("/v1/live"), key: sampleKey)

    static let goodResponse: HTTPHeaders = [
        "Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Accept": sampleAccept,
    ]

    static func response(
        status: HTTPStatus = .switchingProtocols, without name: String? = nil, adding extra: HTTPHeaders = [:]
    ) -> HTTPResponseHead {
        var headers = goodResponse
        if let name { headers.remove(name: name) }
        for header in extra { headers.add(name: header.name, value: header.value) }
        return HTTPResponseHead(status: status, headers: headers)
    }

    @Test(
        "Answers that do not open the connection are rejected with a message saying why",
        arguments: [
            (
                response(status: .unauthorized), 401,
                "server answered 401 Unauthorized instead of 101 Switching Protocols"
            ),
            (response(status: .ok), 200, "server answered 200 OK instead of 101 Switching Protocols"),
            (
                response(without: "Upgrade"), 101,
                #"server's 101 has no Upgrade header, which does not list "websocket""#
            ),
            (
                response(without: "Upgrade", adding: ["Upgrade": "h2c"]), 101,
                #"server's 101 has Upgrade "h2c", which does not list "websocket""#
            ),
            (
                response(without: "Connection", adding: ["Connection": "keep-alive"]), 101,
                #"server's 101 has Connection "keep-alive", which does not list "upgrade""#
            ),
            (
                response(without: "Sec-WebSocket-Accept"), 101,
                #"server's 101 has no Sec-WebSocket-Accept, expected "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="; a proxy may have answered instead of the server"#
            ),
            (
                response(
                    without: "Sec-WebSocket-Accept", adding: ["Sec-WebSocket-Accept": "S3PPLMBITXAQ9KYGZZHZRBK+XOO="]),
                101,
                #"server's 101 has Sec-WebSocket-Accept "S3PPLMBITXAQ9KYGZZHZRBK+XOO=", expected "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="; a proxy may have answered instead of the server"#
            ),
            (
                response(adding: ["Sec-WebSocket-Accept": sampleAccept]), 101,
                #"server's 101 has Sec-WebSocket-Accept "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", expected "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="; a proxy may have answered instead of the server"#
            ),
            (
                response(adding: ["Sec-WebSocket-Extensions": "permessage-deflate"]), 101,
                #"server's 101 selects Sec-WebSocket-Extensions "permessage-deflate", which the client did not offer"#
            ),
            (
                response(adding: ["Sec-WebSocket-Protocol": "chat"]), 101,
                #"server's 101 selects Sec-WebSocket-Protocol "chat", which the client did not offer"#
            ),
        ])
    func clientRejects(head: HTTPResponseHead, status: Int, message: String) {
        #expect {
            try Self.sampleClient.validate(head)
        } throws: { error in
            let error = error as? WebSocketHandshakeError
            return error?.status.code == status && error?.message == message
        }
    }
}
