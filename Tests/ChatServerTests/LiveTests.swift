import ChatDomain
import ChatServer
import ChatTestSupport
import ChatWire
import Foundation
import Testing

/// `/v1/live`: the RFC 6455 handshake and framing, and fan-out to members only.
@Suite(.ownThreads) struct LiveTests {
    @Test("the handshake answers the RFC 6455 sample key with the RFC's accept value")
    func handshakeRFCExample() throws {
        let server = try TestServer()
        let socket = try TestWebSocketClient(
            port: server.port, token: TestData.token("alice"), key: "dGhlIHNhbXBsZSBub25jZQ==")
        #expect(socket.acceptHeader == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test("an upgrade without a token is 401, a bad upgrade 400 or 426, and a plain GET of /v1/live 400")
    func upgradeErrors() throws {
        let server = try TestServer()
        #expect {
            _ = try TestWebSocketClient(port: server.port, token: nil)
        } throws: { ($0 as? UpgradeRefused)?.status == 401 }
        #expect {
            _ = try TestWebSocketClient(port: server.port, token: "nobody")
        } throws: { ($0 as? UpgradeRefused)?.status == 401 }
        let client = try server.client()
        #expect(try client.request("GET", "/v1/live").status == 400)
        let oldVersion = try server.client().request(
            "GET", "/v1/live",
            headers: [
                ("Upgrade", "websocket"), ("Connection", "Upgrade"), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
                ("Sec-WebSocket-Version", "8"),
            ])
        #expect(oldVersion.status == 426)
        #expect(oldVersion.headers["Sec-WebSocket-Version"] == "13")
    }

    @Test("a message reaches every socket of every member, and nothing reaches a non-member")
    func messageFanOut() throws {
        let server = try TestServer()
        let aliceLaptop = try server.live("alice")
        let alicePhone = try server.live("alice")
        let bob = try server.live("bob")
        let carol = try server.live("carol") // in "group", not in "ab"

        let posted = try server.client().post("ab", id: UUID().uuidString, text: "Live!", as: "bob")
        #expect(posted.status == 201)
        for socket in [aliceLaptop, alicePhone, bob] {
            let event = try #require(try socket.nextJSON())
            #expect(event["type"].string == "message")
            #expect(event["conversationId"].string == "ab")
            #expect(event["message"].map { WireJSONText.of($0) } == WireJSONText.of(posted.json))
        }
        // carol hears about the group, but never about "ab": the next thing she gets is the group's message.
        _ = try server.client().post("group", id: UUID().uuidString, text: "to the group", as: "bob")
        let carolEvent = try #require(try carol.nextJSON())
        #expect(carolEvent["conversationId"].string == "group")
        #expect(carolEvent["message"]?["text"].string == "to the group")
    }

    @Test("a receipt event reaches every member when a position moves")
    func receiptFanOut() throws {
        let server = try TestServer()
        let client = try server.client()
        for _ in 1...3 { _ = try client.post("group", id: UUID().uuidString, text: "x") }
        let alice = try server.live("alice")
        let carol = try server.live("carol")
        let dave = try server.live("dave")
        let read = try client.request(
            "POST", "/v1/conversations/group/read", token: TestData.token("bob"), body: #"{"upToSequence":2}"#)
        #expect(read.status == 200)
        for socket in [alice, carol] {
            let event = try #require(try socket.nextJSON())
            #expect(
                event
                    == (try JSONParser.parse(
                        #"{"type":"receipt","conversationId":"group","userId":"bob","deliveredUpTo":2,"readUpTo":2}"#)))
        }
        // dave is in no conversation: the event was published to alice and carol already, and not to him.
        #expect(try dave.nextJSON(timeoutMilliseconds: 300) == nil)
    }

    @Test("a ping is answered with a pong carrying the same payload")
    func pingPong() throws {
        let server = try TestServer()
        let socket = try server.live("alice")
        try socket.ping(Array("are you there".utf8))
        #expect(try socket.nextEvent() == .pong(Array("are you there".utf8)))
    }

    @Test("framing matches RFC 6455 §5.7: the masked ping \"Hello\" gets the unmasked pong 0x8a 0x05 \"Hello\"")
    func rfcFraming() throws {
        let server = try TestServer()
        let socket = try server.live("alice")
        try socket.sendRaw([0x89, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        #expect(try socket.readRaw(7) == [0x8A, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F])
        // A masked text "Hello" (the RFC's example) is valid and ignored; an event then arrives as
        // one unmasked text frame with a 16-bit length (RFC 6455 §5.2).
        try socket.sendRaw([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58])
        _ = try server.client().post("ab", id: UUID().uuidString, text: String(repeating: "x", count: 200), as: "bob")
        let header = try #require(try socket.readRaw(4))
        #expect(header[0] == 0x81)
        #expect(header[1] == 126)
        let length = Int(header[2]) << 8 | Int(header[3])
        let payload = try #require(try socket.readRaw(length))
        #expect(try JSONParser.parse(payload)["message"]?["text"].string == String(repeating: "x", count: 200))
    }

    @Test("the client's close is echoed with its code")
    func closeHandshake() throws {
        let server = try TestServer()
        let socket = try server.live("alice")
        try socket.sendRaw(
            WebSocketFrame(opcode: .close, payload: [0x03, 0xE8]).encoded(maskingKey: WebSocketMaskingKey(1, 2, 3, 4)))
        #expect(try socket.closeCode() == 1000)
    }

    @Test(
        "an unmasked client frame is closed with 1002, an oversized one with 1009, invalid UTF-8 with 1007",
        arguments: [
            (WebSocketFrame(opcode: .text, payload: Array("hi".utf8)).encoded(maskingKey: nil), UInt16(1002)),
            (
                WebSocketFrame(opcode: .text, payload: [UInt8](repeating: 0x61, count: 70_000)).encoded(
                    maskingKey: WebSocketMaskingKey(9, 8, 7, 6)), UInt16(1009)
            ),
            (
                WebSocketFrame(opcode: .text, payload: [0xC3, 0x28]).encoded(
                    maskingKey: WebSocketMaskingKey(9, 8, 7, 6)), UInt16(1007)
            ),
            (
                WebSocketFrame(opcode: .ping, payload: [UInt8](repeating: 0, count: 126)).encoded(
                    maskingKey: WebSocketMaskingKey(9, 8, 7, 6)), UInt16(1002)
            ),
        ])
    func badFrames(frame: [UInt8], code: UInt16) throws {
        let server = try TestServer()
        let socket = try server.live("alice")
        try socket.sendRaw(frame)
        #expect(try socket.closeCode() == code)
        // Everyone else is still served.
        let other = try server.live("bob")
        _ = try server.client().post("ab", id: UUID().uuidString, text: "still here")
        #expect(try other.nextJSON()?["type"].string == "message")
    }

    @Test("a live socket that stays silent past the live idle timeout is closed with 1001")
    func silentSocket() throws {
        let server = try TestServer { $0.liveIdleTimeoutMilliseconds = 300 }
        let socket = try server.live("alice")
        #expect(try socket.closeCode() == 1001)
    }
}

/// Canonical text of a JSON value, to compare an event's message with a POST's response.
enum WireJSONText {
    static func of(_ value: JSONValue) -> String {
        String(decoding: JSONWriter.encode(value), as: UTF8.self)
    }
}
