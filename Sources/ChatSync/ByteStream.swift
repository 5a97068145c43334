/// A connected, ordered stream of bytes to a server: what the HTTP client and the live
/// connection speak HTTP and WebSocket over. ``TCPConnection`` is one, ``TLSConnection`` (https,
/// wss) another, and tests script one that stalls, resets or trickles.
///
/// Calls block the calling thread (each user gives a stream a thread or serial queue of its own);
/// ``shutdown()`` may come from any thread and wakes a blocked ``read(until:)``.
protocol ByteStream: AnyObject, Sendable {
    /// Sends every byte, or throws when it cannot by `deadline`.
    func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws(TransportError)
    /// Waits until `deadline` at most for bytes from the peer.
    func read(until deadline: ContinuousClock.Instant) throws(TransportError) -> ByteStreamRead
    /// Ends the stream both ways; a blocked reader then sees it closed.
    func shutdown()
}

/// What one ``ByteStream/read(until:)`` found.
enum ByteStreamRead: Sendable, Equatable {
    case bytes([UInt8])
    case timedOut
    case closed
}

extension ByteStream {
    /// Sends every byte within `timeout` from now.
    func write(_ bytes: [UInt8], timeout: Duration) throws(TransportError) {
        try write(bytes, until: .now + timeout)
    }
}
