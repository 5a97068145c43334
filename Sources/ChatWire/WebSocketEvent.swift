/// Something a WebSocket peer sent, reassembled and checked.
public enum WebSocketEvent: Sendable, Hashable {
    /// A complete text message, valid UTF-8.
    case text(String)
    /// A complete binary message.
    case binary([UInt8])
    /// A ping; answer it with `connection.pong(payload)`.
    case ping([UInt8])
    /// A pong: the peer is alive.
    case pong([UInt8])
    /// The peer closed, with its code (nil when it sent none) and reason. `reply` is the close
    /// frame to write before shutting the socket: the peer's code echoed. It is nil when this
    /// close answers one we sent, and then the handshake is complete.
    case close(code: UInt16?, reason: String, reply: [UInt8]?)
}
