/// One WebSocket frame (RFC 6455 §5.2) with its payload unmasked, and its encoder.
public struct WebSocketFrame: Sendable, Hashable {
    /// Whether this is the last frame of its message; always true for control frames.
    public var fin: Bool
    public var opcode: WebSocketOpcode
    /// The application data, unmasked.
    public var payload: [UInt8]

    public init(fin: Bool = true, opcode: WebSocketOpcode, payload: [UInt8]) {
        self.fin = fin
        self.opcode = opcode
        self.payload = payload
    }

    /// The frame as bytes on the wire, with the shortest length encoding (7, 16 or 64 bits).
    /// - Parameter maskingKey: the key to mask with: a fresh one for every frame a client sends,
    ///   nil for frames a server sends.
    public func encoded(maskingKey: WebSocketMaskingKey?) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | opcode.rawValue]
        let maskBit: UInt8 = maskingKey == nil ? 0 : 0x80
        switch payload.count {
        case 0...125:
            bytes.append(maskBit | UInt8(payload.count))
        case 126...0xFFFF:
            bytes.append(maskBit | 126)
            bytes.append(contentsOf: Self.bigEndian(UInt64(payload.count), byteCount: 2))
        default:
            bytes.append(maskBit | 127)
            bytes.append(contentsOf: Self.bigEndian(UInt64(payload.count), byteCount: 8))
        }
        guard let maskingKey else { return bytes + payload }
        var masked = payload
        maskingKey.apply(to: &masked)
        return bytes + maskingKey.bytes + masked
    }

    private static func bigEndian(_ value: UInt64, byteCount: Int) -> [UInt8] {
        (0..<byteCount).reversed().map { UInt8(truncatingIfNeeded: value >> UInt64($0 * 8)) }
    }
}
