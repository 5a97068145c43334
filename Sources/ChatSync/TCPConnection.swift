import ChatSystem

/// A client TCP connection for the live WebSocket, over ChatSystem's sockets.
/// Blocking calls (connect, poll, recv) run on the caller's thread, never on the cooperative
/// pool: ``LiveConnection`` gives each connection a thread of its own.
final class TCPConnection: @unchecked Sendable {
    // The descriptor is only read after init; `shutdown` from another thread is how a blocked
    // reader is woken, which is what makes this type safe to share. It closes with this object.
    private let socket: FileDescriptor

    private init(socket: consuming FileDescriptor) {
        self.socket = socket
    }

    /// Connects to `host:port`, giving up after `timeout`.
    /// - Throws: ``TransportError`` carrying the ``Socket/ConnectError``, its kind read from it.
    static func connect(host: String, port: UInt16, timeout: Duration) throws(TransportError) -> TCPConnection {
        do {
            return TCPConnection(
                socket: try Socket.connect(host: host, port: port, timeoutMilliseconds: Self.milliseconds(timeout)))
        } catch {
            throw TransportError(error)
        }
    }

    private static func milliseconds(_ timeout: Duration) -> Int {
        Int(clamping: Int64(timeout.seconds * 1000))
    }

    /// Sends every byte (MSG_NOSIGNAL: a closed peer is an error, not a SIGPIPE).
    func send(_ bytes: [UInt8], timeout: Duration = .seconds(10)) throws(TransportError) {
        let sent: Bool
        do {
            sent = try Socket.send(socket.rawValue, bytes, timeoutMilliseconds: Self.milliseconds(timeout))
        } catch {
            throw TransportError(error)
        }
        guard sent else { throw TransportError(.timedOut, "send timed out") }
    }

    /// What `receive` found.
    enum Received {
        case bytes([UInt8])
        case timedOut
        case closed
    }

    /// Waits up to `timeout` for bytes from the peer.
    func receive(timeout: Duration) throws(TransportError) -> Received {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count: Int
        do {
            guard try Poll.wait([socket.rawValue], timeoutMilliseconds: Self.milliseconds(timeout))[0].readyToRead
            else { return .timedOut }
            count = try Socket.receive(socket.rawValue, into: &buffer)
        } catch  where error.isWouldBlock {
            return .timedOut
        } catch {
            throw TransportError(error)
        }
        if count == 0 { return .closed }
        return .bytes(Array(buffer[0..<count]))
    }

    /// Wakes a thread blocked in ``receive(timeout:)``, which then sees the connection closed.
    func shutdown() {
        Socket.shutdown(socket.rawValue)
    }
}
