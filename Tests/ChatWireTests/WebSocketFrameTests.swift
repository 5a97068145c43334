import ChatTestSupport
import Testing

@testable import ChatWire

/// The masking key of the RFC 6455 §5.7 examples.
let rfcMaskingKey = WebSocketMaskingKey(0x37, 0xFA, 0x21, 0x3D)

@Suite(.ownThreads) struct WebSocketFrameTests {
    static let hello = Array("Hello".utf8)

    @Test(
        "Frames encode to the RFC 6455 §5.7 example bytes",
        arguments: [
            (WebSocketFrame(opcode: .text, payload: hello), nil, [0x81, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]),
            (
                WebSocketFrame(opcode: .text, payload: hello), rfcMaskingKey,
                [0x81, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
            ),
            (
                WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)), nil,
                [0x01, 0x03, 0x48, 0x65, 0x6C]
            ),
            (WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)), nil, [0x80, 0x02, 0x6C, 0x6F]),
            (WebSocketFrame(opcode: .ping, payload: hello), nil, [0x89, 0x05, 0x48, 0x65, 0x6C, 0x6C, 0x6F]),
            (
                WebSocketFrame(opcode: .pong, payload: hello), rfcMaskingKey,
                [0x8A, 0x85, 0x37, 0xFA, 0x21, 0x3D, 0x7F, 0x9F, 0x4D, 0x51, 0x58]
            ),
        ] as [(WebSocketFrame, WebSocketMaskingKey?, [UInt8])])
    func rfcExamples(frame: WebSocketFrame, key: WebSocketMaskingKey?, bytes: [UInt8]) {
        #expect(frame.encoded(maskingKey: key) == bytes)
    }

    @Test(
        "Lengths use 7, 16 or 64 bits, whichever is shortest",
        arguments: [
            (0, [0x82, 0x00]),
            (125, [0x82, 0x7D]),
            (126, [0x82, 0x7E, 0x00, 0x7E]),
            (256, [0x82, 0x7E, 0x01, 0x00]),
            (65535, [0x82, 0x7E, 0xFF, 0xFF]),
            (65536, [0x82, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00]),
        ])
    func lengthEncoding(length: Int, header: [UInt8]) {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0) }
        let bytes = WebSocketFrame(opcode: .binary, payload: payload).encoded(maskingKey: nil)
        #expect(Array(bytes.prefix(header.count)) == header)
        #expect(Array(bytes.dropFirst(header.count)) == payload)
    }

    @Test("A masked frame puts the mask bit in the length byte and the key before the payload")
    func maskedLongFrame() {
        let payload = [UInt8](repeating: 0, count: 256)
        let bytes = WebSocketFrame(opcode: .binary, payload: payload).encoded(maskingKey: rfcMaskingKey)
        #expect(Array(bytes.prefix(8)) == [0x82, 0xFE, 0x01, 0x00, 0x37, 0xFA, 0x21, 0x3D])
        #expect(Array(bytes.dropFirst(8).prefix(8)) == [0x37, 0xFA, 0x21, 0x3D, 0x37, 0xFA, 0x21, 0x3D])
    }

    @Test("Random masking keys differ from frame to frame")
    func randomKeys() {
        let keys = (0..<8).map { _ in WebSocketMaskingKey.random() }
        #expect(Set(keys).count > 1)
    }
}
