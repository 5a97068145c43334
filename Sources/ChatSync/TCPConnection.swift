#if canImport(Glibc)
import Glibc
#endif

/// A client TCP connection for the live WebSocket: the one file in ChatSync that calls Glibc.
/// Blocking calls (connect, poll, recv) run on the caller's thread, never on the cooperative
/// pool: ``LiveConnection`` gives each connection a thread of its own.
final class TCPConnection: @unchecked Sendable {
    // The fd is only read after init; `shutdown` from another thread is how a blocked
    // reader is woken, which is what makes this type safe to share.
    private let fd: Int32

    private init(fd: Int32) {
        self.fd = fd
    }

    deinit {
        close(fd)
    }

    /// Connects to `host:port`, giving up after `timeout`.
    static func connect(host: String, port: UInt16, timeout: Duration) throws(SyncError) -> TCPConnection {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw .unreachable("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd = socket(address.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { lastError = String(cString: strerror(errno)); continue }
            let connection = TCPConnection(fd: fd)
            if Glibc.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) != 0 {
                guard errno == EINPROGRESS else { lastError = String(cString: strerror(errno)); continue }
                guard try connection.wait(for: Int16(POLLOUT), timeout: timeout) else { lastError = "timed out"; continue }
                var error: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length)
                guard error == 0 else { lastError = String(cString: strerror(error)); continue }
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            return connection
        }
        throw .unreachable("cannot connect to \(host):\(port): \(lastError)")
    }

    /// Waits until the socket is ready for `events`; false on timeout.
    private func wait(for events: Int16, timeout: Duration) throws(SyncError) -> Bool {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        let milliseconds = Int32(clamping: Int64(timeout.seconds * 1000))
        while true {
            let result = poll(&entry, 1, milliseconds)
            if result > 0 { return true }
            if result == 0 { return false }
            if errno != EINTR { throw .temporary("poll: \(String(cString: strerror(errno)))", retryAfter: nil) }
        }
    }

    /// Sends every byte (MSG_NOSIGNAL: a closed peer is an error, not a SIGPIPE).
    func send(_ bytes: [UInt8], timeout: Duration = .seconds(10)) throws(SyncError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer in
                Glibc.send(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent >= 0 {
                offset += sent
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                guard try wait(for: Int16(POLLOUT), timeout: timeout) else { throw .temporary("send timed out", retryAfter: nil) }
            } else if errno != EINTR {
                throw .temporary("send: \(String(cString: strerror(errno)))", retryAfter: nil)
            }
        }
    }

    /// What `receive` found.
    enum Received {
        case bytes([UInt8])
        case timedOut
        case closed
    }

    /// Waits up to `timeout` for bytes from the peer.
    func receive(timeout: Duration) throws(SyncError) -> Received {
        guard try wait(for: Int16(POLLIN), timeout: timeout) else { return .timedOut }
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { return .bytes(Array(buffer[0..<count])) }
            if count == 0 { return .closed }
            if errno == EAGAIN || errno == EWOULDBLOCK { return .timedOut }
            if errno != EINTR { throw .temporary("recv: \(String(cString: strerror(errno)))", retryAfter: nil) }
        }
    }

    /// Wakes a thread blocked in ``receive(timeout:)``, which then sees the connection closed.
    func shutdown() {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }
}
