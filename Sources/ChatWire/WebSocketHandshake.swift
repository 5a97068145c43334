/// The values both sides of the opening handshake (RFC 6455 §4) compute.
public enum WebSocketHandshake {
    /// The only protocol version in use, sent as `Sec-WebSocket-Version`.
    public static let version = "13"

    /// The GUID that RFC 6455 §1.3 appends to the key before hashing.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Accept` value that proves a server read `key`: base64(SHA-1(key + GUID)).
    public static func acceptValue(forKey key: String) -> String {
        Base64.encode(SHA1.hash((key + guid).utf8))
    }

    /// A fresh `Sec-WebSocket-Key`: 16 random bytes from the system's secure generator, base64.
    public static func makeKey() -> String {
        // The system's source, without an inout generator of size zero (see ChatSync's JitterRandom).
        Base64.encode((0..<16).map { _ in UInt8.random(in: .min ... .max) })
    }
}
