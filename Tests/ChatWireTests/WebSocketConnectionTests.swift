import ChatTestSupport
import Testing

@testable import ChatWire

/// What a connection made of some input: its events in order, then the error that stopped it, if any.
struct WebSocketOutcome: Equatable {
    var events: [WebSocketEvent] = []
    var error: WebSocketProtocolError?
}

/// Receives `input` fed all at once and fed a byte at a time, expects both to agree, and returns the outcome.
func receive(
    _ input: [UInt8],
    on connection: WebSocketConnection,
    sourceLocation: SourceLocation = #_sourceLocation
) -> WebSocketOutcome {
    func run(_ chunks: [[UInt8]]) -> WebSocketOutcome {
        var connection = connection
        var outcome = WebSocketOutcome()
        do {
            for chunk in chunks {
                connection.feed(chunk)
                while let event = try connection.nextEvent() {
                    outcome.events.append(event)
                }
            }
        } catch {
            outcome.error = error
        }
        return outcome
    }
    let whole = run([input])
    #expect(whole == run(input.map { [$0] }), "feeding byte by byte changed the result", sourceLocation: sourceLocation)
    return whole
}

let client = WebSocketConnection(role: .client, makeMaskingKey: { rfcMaskingKey })
let server = WebSocketConnection(role: .server)

@Suite(.ownThreads) struct WebSocketConnectionTests {
    static let hello = Array("Hello".utf8)

    @Test(
        "A client reads the RFC 6455 §5.7 unmasked examples",
        arguments: [
            ([0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F], [WebSocketEvent.text("Hello")]),
            ([0x01, 0x03, 0x48, 0x65, 0x6C, 0x80, 0x02, 0x6C, 0x6F], [.text("Hello")]),
            ([0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F], [.ping(hello)]),
        ] as [([UInt8], [WebSocketEvent])])
    func clientReadsRFCExamples(bytes: [UInt8], events: [WebSocketEvent]) {
        #expect(receive(bytes, on: client) == WebSocketOutcome(events: events))
    }

    @Test(
        "A server reads the RFC 6455 §5.7 masked examples",
        arguments: [
            ([0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58], WebSocketEvent.text("Hello")),
            ([0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58], .pong(hello)),
        ] as [([UInt8], WebSocketEvent)])
    func serverReadsRFCExamples(bytes: [UInt8], event: WebSocketEvent) {
        #expect(receive(bytes, on: server) == WebSocketOutcome(events: [event]))
    }

    @Test("256-byte and 64 KiB binary messages come through whole", arguments: [256, 65536])
    func longBinary(length: Int) {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let bytes = WebSocketFrame(opcode: .binary, payload: payload).encoded(maskingKey: nil)
        #expect(receive(bytes, on: client) == WebSocketOutcome(events: [.binary(payload)]))
    }

    @Test("Control frames between fragments are delivered at once, and the message after its last fragment")
    func interleavedControlFrames() {
        let bytes =
            // "H", half of "é"
            WebSocketFrame(fin: false, opcode: .text, payload: [0x48, 0xC3]).encoded(maskingKey: nil)
            + WebSocketFrame(opcode: .ping, payload: [1]).encoded(maskingKey: nil)
            + WebSocketFrame(fin: false, opcode: .continuation, payload: [0xA9]).encoded(maskingKey: nil)
            + WebSocketFrame(opcode: .pong, payload: []).encoded(maskingKey: nil)
            + WebSocketFrame(opcode: .continuation, payload: Array("!".utf8)).encoded(maskingKey: nil)
            + WebSocketFrame(opcode: .binary, payload: [9]).encoded(maskingKey: nil)
        #expect(
            receive(bytes, on: client) == WebSocketOutcome(events: [.ping([1]), .pong([]), .text("Hé!"), .binary([9])]))
    }

    @Test("What a client sends, a server reads, and the other way round")
    func roundTrip() {
        var sender = WebSocketConnection(role: .client)
        let clientBytes =
            sender.text("héllo") + sender.binary([0, 255]) + sender.ping([7]) + sender.pong([8])
            + sender.close(code: 4000, reason: "done")
        #expect(
            receive(clientBytes, on: server).events == [
                .text("héllo"), .binary([0, 255]), .ping([7]), .pong([8]),
                .close(code: 4000, reason: "done", reply: [0x88, 0x02, 0x0F, 0xA0]),
            ])

        var answerer = server
        let serverBytes = answerer.text("hi") + answerer.close()
        #expect(
            receive(serverBytes, on: client).events == [
                .text("hi"),
                .close(
                    code: 1000, reason: "", reply: [0x88, 0x82] + rfcMaskingKey.bytes + [0x03 ^ 0x37, 0xE8 ^ 0xFA]),
            ])
    }

    @Test("A close from the peer is answered by echoing its code, or with no code when it sent none")
    func echoClose() {
        #expect(
            receive([0x88, 0x00], on: client).events == [
                .close(code: nil, reason: "", reply: [0x88, 0x80] + rfcMaskingKey.bytes)
            ])
        #expect(
            receive([0x88, 0x02, 0x03, 0xE9], on: client).events == [
                .close(code: 1001, reason: "", reply: [0x88, 0x82] + rfcMaskingKey.bytes + [0x03 ^ 0x37, 0xE9 ^ 0xFA])
            ])
    }

    @Test("After the peer's close nothing more is read, and only the echo is sent")
    func afterReceivedClose() throws {
        var connection = client
        connection.feed([0x88, 0x00, 0x81, 0x01, 0x41])
        guard case .close(_, _, let reply)? = try connection.nextEvent() else {
            Issue.record("no close event")
            return
        }
        #expect(reply != nil)
        #expect(try connection.nextEvent() == nil)
        #expect(connection.closeReceived && connection.closeSent)
        #expect(connection.text("late").isEmpty)
        #expect(connection.close().isEmpty)
    }

    @Test("After we close, nothing more is sent, and the peer's close needs no reply")
    func afterSentClose() throws {
        var connection = server
        #expect(connection.close(code: 1001, reason: "restart") == [0x88, 0x09, 0x03, 0xE9] + Array("restart".utf8))
        #expect(connection.closeSent && !connection.closeReceived)
        #expect(
            connection.text("late").isEmpty && connection.binary([1]).isEmpty && connection.ping().isEmpty
                && connection.pong([]).isEmpty)
        #expect(connection.close().isEmpty)

        connection.feed(WebSocketFrame(opcode: .text, payload: [0x41]).encoded(maskingKey: rfcMaskingKey))
        connection.feed(WebSocketFrame(opcode: .close, payload: [0x03, 0xE9]).encoded(maskingKey: rfcMaskingKey))
        #expect(try connection.nextEvent() == .text("A"))
        #expect(try connection.nextEvent() == .close(code: 1001, reason: "", reply: nil))
    }

    @Test(
        "Codes that must not be sent give a close frame without a code",
        arguments: [1005, 1006, 1015, 999, 1004, 2000, 5000] as [UInt16])
    func unsendableCloseCodes(code: UInt16) {
        var connection = server
        #expect(connection.close(code: code, reason: "ignored") == [0x88, 0x00])
    }

    @Test("A long close reason is cut to 123 bytes at a character boundary")
    func longCloseReason() {
        var connection = server
        let bytes = connection.close(code: 1000, reason: "a" + String(repeating: "é", count: 100))
        #expect(bytes.count == 2 + 2 + 123)
        #expect(bytes[1] == 125)

        var shorter = server
        #expect(shorter.close(code: 1000, reason: "aa" + String(repeating: "é", count: 100)).count == 2 + 2 + 122)
    }

    @Test("Ping and pong payloads are cut to the 125 bytes a control frame may carry")
    func longPing() {
        #expect(server.ping([UInt8](repeating: 1, count: 200)).count == 2 + 125)
        #expect(server.pong([UInt8](repeating: 1, count: 200)).count == 2 + 125)
    }

    @Test(
        "Received close codes that are allowed on the wire are reported",
        arguments: [1000, 1001, 1003, 1007, 1011, 1014, 3000, 4999] as [UInt16])
    func validCloseCodes(code: UInt16) {
        let outcome = receive([0x88, 0x02, UInt8(code >> 8), UInt8(code & 0xFF)], on: client)
        guard case .close(let received, _, _)? = outcome.events.first else {
            Issue.record("no close event for \(code): \(outcome)")
            return
        }
        #expect(received == code)
    }

    @Test("A declared length over the limit fails before any payload arrives")
    func tooBigBeforePayload() {
        var connection = WebSocketConnection(role: .client, maxMessageSize: 1000)
        connection.feed([0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x7F, 0xFF, 0xFF, 0xFF])
        #expect(throws: WebSocketProtocolError.messageTooBig(atLeast: 0x7FFF_FFFF, limit: 1000)) {
            try connection.nextEvent()
        }
        #expect(throws: WebSocketProtocolError.messageTooBig(atLeast: 0x7FFF_FFFF, limit: 1000)) {
            try connection.nextEvent()
        }
    }

    @Test("A message exactly at the limit is accepted")
    func atTheLimit() {
        let limited = WebSocketConnection(role: .client, maxMessageSize: 4)
        let bytes: [UInt8] = [0x02, 0x02, 1, 2, 0x80, 0x02, 3, 4]
        #expect(receive(bytes, on: limited) == WebSocketOutcome(events: [.binary([1, 2, 3, 4])]))
    }

    static let tooBig = WebSocketConnection(role: .client, maxMessageSize: 4)

    @Test(
        "Frames that break the protocol fail with the close code to send and what was wrong",
        arguments: [
            (server, [0x81, 0x01, 0x41], 1002, "client frame is not masked; a client must mask every frame"),
            (
                client, [0x81, 0x81, 0x37, 0xFA, 0x21, 0x3D, 0x76], 1002,
                "server frame is masked; a server must not mask frames"
            ),
            (client, [0xC1, 0x00], 1002, "frame has reserved bits 0x4 set but no extension was negotiated"),
            (client, [0x91, 0x00], 1002, "frame has reserved bits 0x1 set but no extension was negotiated"),
            (client, [0x83, 0x00], 1002, "frame has reserved opcode 0x3"),
            (client, [0x8B, 0x00], 1002, "frame has reserved opcode 0xB"),
            (client, [0x09, 0x00], 1002, "ping frame is fragmented; control frames must have FIN set"),
            (client, [0x08, 0x00], 1002, "close frame is fragmented; control frames must have FIN set"),
            (client, [0x89, 0x7E, 0x00, 0x7E], 1002, "ping frame carries 126 bytes; control frames carry at most 125"),
            (client, [0x80, 0x00], 1002, "continuation frame arrived with no fragmented message to continue"),
            (
                client, [0x01, 0x01, 0x41, 0x81, 0x01, 0x42], 1002,
                "text frame started a new message before the fragmented one ended"
            ),
            (
                client, [0x02, 0x01, 0x41, 0x82, 0x00], 1002,
                "binary frame started a new message before the fragmented one ended"
            ),
            (
                client, [0x82, 0x7F, 0x80, 0, 0, 0, 0, 0, 0, 0], 1002,
                "frame declares 9223372036854775808 bytes; the most significant bit of a 64-bit length must be 0"
            ),
            (
                client, [0x82, 0x7F, 0, 0, 0, 0, 0, 0x10, 0x00, 0x01], 1009,
                "message of at least 1048577 bytes exceeds the limit of 1048576 bytes"
            ),
            (
                tooBig, [0x02, 0x03, 1, 2, 3, 0x80, 0x02], 1009,
                "message of at least 5 bytes exceeds the limit of 4 bytes"
            ),
            (client, [0x81, 0x02, 0xC3, 0x28], 1007, "text message is not valid UTF-8"),
            (client, [0x01, 0x01, 0xC3, 0x80, 0x01, 0x28], 1007, "text message is not valid UTF-8"),
            (client, [0x81, 0x04, 0xED, 0xA0, 0x80, 0x41], 1007, "text message is not valid UTF-8"),
            (client, [0x88, 0x01, 0x03], 1002, "close frame carries 1 byte; a close code takes 2"),
            (client, [0x88, 0x02, 0x03, 0xE7], 1002, "close code 999 is not allowed on the wire"),
            (client, [0x88, 0x02, 0x03, 0xEC], 1002, "close code 1004 is not allowed on the wire"),
            (client, [0x88, 0x02, 0x03, 0xED], 1002, "close code 1005 is not allowed on the wire"),
            (client, [0x88, 0x02, 0x03, 0xEE], 1002, "close code 1006 is not allowed on the wire"),
            (client, [0x88, 0x02, 0x03, 0xF7], 1002, "close code 1015 is not allowed on the wire"),
            (client, [0x88, 0x02, 0x03, 0xF8], 1002, "close code 1016 is not allowed on the wire"),
            (client, [0x88, 0x02, 0x0B, 0xB7], 1002, "close code 2999 is not allowed on the wire"),
            (client, [0x88, 0x02, 0x13, 0x88], 1002, "close code 5000 is not allowed on the wire"),
            (client, [0x88, 0x04, 0x03, 0xE8, 0xFF, 0xFE], 1007, "close reason is not valid UTF-8"),
        ] as [(WebSocketConnection, [UInt8], UInt16, String)])
    func protocolErrors(connection: WebSocketConnection, bytes: [UInt8], closeCode: UInt16, message: String) {
        let outcome = receive(bytes, on: connection)
        #expect(outcome.events.isEmpty)
        #expect(outcome.error?.closeCode == closeCode)
        #expect(outcome.error?.message == message)
    }

    @Test("After a protocol error the connection answers with the error's code")
    func closeAfterError() throws {
        var connection = server
        connection.feed([0x81, 0x01, 0x41])
        do {
            _ = try connection.nextEvent()
            Issue.record("an unmasked client frame was accepted")
        } catch {
            #expect(
                connection.close(code: error.closeCode, reason: error.message).prefix(4) == [0x88, 0x3C, 0x03, 0xEA])
        }
    }
}
