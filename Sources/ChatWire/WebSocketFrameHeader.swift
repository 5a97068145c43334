/// The fixed part of a received frame, read before its payload so that it can be checked
/// (opcode, masking, size) before any payload is waited for or buffered.
struct WebSocketFrameHeader: Sendable, Hashable {
    var fin: Bool
    /// RSV1–RSV3 in their wire positions (`0x70`); non-zero only with a negotiated extension.
    var reservedBits: UInt8
    /// The opcode as sent; it may be a reserved value that `WebSocketOpcode` does not list.
    var rawOpcode: UInt8
    var maskingKey: WebSocketMaskingKey?
    /// The declared payload length; a peer can declare up to 2⁶⁴−1 bytes, so check it before use.
    var payloadLength: UInt64
    /// How many bytes the header itself takes: 2 to 14.
    var headerLength: Int

    /// Reads a header from the front of `bytes`, or returns nil when it is not complete yet.
    init?(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count >= 2 else { return nil }
        let first = bytes[bytes.startIndex]
        let second = bytes[bytes.startIndex + 1]
        let lengthFieldSize =
            switch second & 0x7F {
            case 126: 2
            case 127: 8
            default: 0
            }
        let maskSize = second & 0x80 != 0 ? 4 : 0
        headerLength = 2 + lengthFieldSize + maskSize
        guard bytes.count >= headerLength else { return nil }

        fin = first & 0x80 != 0
        reservedBits = first & 0x70
        rawOpcode = first & 0x0F
        let lengthField = bytes.dropFirst(2).prefix(lengthFieldSize)
        payloadLength = lengthFieldSize == 0 ? UInt64(second & 0x7F) : lengthField.reduce(0) { $0 << 8 | UInt64($1) }
        let key = bytes.dropFirst(2 + lengthFieldSize).prefix(maskSize)
        maskingKey = WebSocketMaskingKey(bytes: key)
    }
}
