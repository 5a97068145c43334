import ChatSystem
import ChatTLS

/// The bytes of one server connection: the plain socket, or TLS over it (`serve --tls-cert`).
/// ``Connection`` reads, waits and sends only through here, so HTTPS and WSS share its code.
///
/// A TLS connection's socket is non-blocking: every wait is a `poll` with a deadline, and bytes
/// OpenSSL already decrypted (`SSL_pending`) count as readable though `poll` cannot see them.
struct ConnectionIO: Sendable {
    let fd: Int32
    let tls: TLS.Session?
    let sendTimeoutMilliseconds: Int
    /// How long a read may wait for the rest of a TLS record once `poll` said readable.
    let recordTimeoutMilliseconds: Int

    var isTLS: Bool { tls != nil }

    /// Waits for the connection (the first result) or one of `others` to be readable.
    func wait(_ others: [Int32] = [], timeoutMilliseconds: Int) throws(SystemError) -> [PollResult] {
        if let tls, tls.hasPendingBytes {
            return [PollResult(readable: true, hungUp: false)]
                + others.map { _ in PollResult(readable: false, hungUp: false) }
        }
        return try Poll.wait([fd] + others, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Reads what is there; 0 when the peer closed.
    func receive(into buffer: inout [UInt8]) throws(SystemError) -> Int {
        guard let tls else { return try Socket.receive(fd, into: &buffer) }
        let read: TLS.Read
        do { read = try tls.read(until: Self.deadline(recordTimeoutMilliseconds)) } catch {
            throw Self.systemError(error, "TLS read")
        }
        switch read {
        case .bytes(let bytes):
            let count = min(bytes.count, buffer.count)
            buffer.replaceSubrange(0..<count, with: bytes[0..<count])
            // The session never returns more than a buffer's worth (16 KiB) at once.
            return count
        case .closed: return 0
        case .timedOut: throw SystemError(operation: "TLS read", path: "", errno: .timedOut)
        }
    }

    /// Sends every byte (a blocking socket's SO_SNDTIMEO, or TLS with the send timeout).
    func sendAll(_ bytes: [UInt8]) throws(SystemError) {
        guard let tls else { return try Socket.sendAll(fd, bytes) }
        do { try tls.write(bytes, until: Self.deadline(sendTimeoutMilliseconds)) } catch {
            throw Self.systemError(error, "TLS write")
        }
    }

    private static func deadline(_ milliseconds: Int) -> ContinuousClock.Instant {
        .now + .milliseconds(milliseconds)
    }

    private static func systemError(_ failure: TLS.Failure, _ operation: String) -> SystemError {
        SystemError(operation: operation, path: failure.detail, errno: failure.kind == .timedOut ? .timedOut : .ioError)
    }
}
