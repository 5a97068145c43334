/// The 4-byte key a client XORs over each frame's payload (RFC 6455 §5.3).
///
/// Masking exists so that a client cannot make bytes on the wire look like another protocol to
/// a broken proxy; it is not encryption. Each client frame needs a fresh, unpredictable key.
public struct WebSocketMaskingKey: Sendable, Hashable {
    /// The four key bytes, in wire order.
    public let bytes: [UInt8]

    public init(_ byte0: UInt8, _ byte1: UInt8, _ byte2: UInt8, _ byte3: UInt8) {
        bytes = [byte0, byte1, byte2, byte3]
    }

    /// The key in `bytes`, or nil unless there are exactly four.
    init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 4 else { return nil }
        self.bytes = Array(bytes)
    }

    /// A key from the system's cryptographically secure generator (`getrandom` on Linux).
    public static func random() -> WebSocketMaskingKey {
        let value = UInt32.random(in: .min ... .max)
        return WebSocketMaskingKey(
            UInt8(truncatingIfNeeded: value >> 24), UInt8(truncatingIfNeeded: value >> 16),
            UInt8(truncatingIfNeeded: value >> 8), UInt8(truncatingIfNeeded: value)
        )
    }

    /// XORs the key over `payload`; applying it twice gives the payload back.
    func apply(to payload: inout [UInt8]) {
        for index in payload.indices {
            payload[index] ^= bytes[index & 3]
        }
    }
}
