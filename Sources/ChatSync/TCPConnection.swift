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
    static func connect(host: String, port: UInt16, timeout: Duration) throws(SyncError) -> TCPConnection {
        do {
            return TCPConnection(socket: try Socket.connect(host: host, port: port, timeoutMilliseconds: Self.milliseconds(timeout)))
        } catch {
            throw .unreachable(error.description)
        }
    }

    private static func milliseconds(_ timeout: Duration) -> Int {
        Int(clamping: Int64(timeout.seconds * 1000))
    }

    /// Sends every byte (MSG_NOSIGNAL: a closed peer is an error, not a SIGPIPE).
    func send(_ bytes: [UInt8], timeout: Duration = .seconds(10)) throws(SyncError) {
        let sent: Bool
        do {
            sent = try Socket.send(socket.rawValue, bytes, timeoutMilliseconds: Self.milliseconds(timeout))
        } catch {
            throw .temporary(error.description, retryAfter: nil)
        }
        guard sent else { throw .temporary("send timed out", retryAfter: nil) }
    }

    /// What `receive` found.
    enum Received {
        case bytes([UInt8])
        case timedOut
        case closed
    }

    /// Waits up to `timeout` for bytes from the peer.
    func receive(timeout: Duration) throws(SyncError) -> Received {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count: Int
        do {
            guard try Poll.wait([socket.rawValue], timeoutMilliseconds: Self.milliseconds(timeout))[0].readyToRead else { return .timedOut }
            count = try Socket.receive(socket.rawValue, into: &buffer)
        } catch where error.isWouldBlock {
            return .timedOut
        } catch {
            throw .temporary(error.description, retryAfter: nil)
        }
        if count == 0 { return .closed }
        return .bytes(Array(buffer[0..<count]))
    }

    /// Wakes a thread blocked in ``receive(timeout:)``, which then sees the connection closed.
    func shutdown() {
        Socket.shutdown(socket.rawValue)
    }
}
