#if canImport(Glibc)
    import Glibc
#endif

/// TCP sockets, each call wrapped once (EINTR retried, errno turned into a ``SystemError``):
/// the server's listener and connections, the sync client's connection, the test clients.
/// Sends use `MSG_NOSIGNAL`, so a peer that went away gives EPIPE instead of killing the
/// process with SIGPIPE.
///
/// Calls that make a socket return the ``FileDescriptor`` that owns it. Calls on an open socket
/// take its number: a connection's number is also in the server's set of open connections,
/// which `stop()` shuts down from another thread while the connection's own thread reads.
public enum Socket {
    /// `host:port` as an IPv4 socket address (the host a dotted quad).
    private static func ipv4Address(host: String, port: Int) throws(SystemError) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw SystemError(operation: "parse address", path: host, errno: .invalidArgument)
        }
        return address
    }

    private static func tcpSocket(family: Int32 = AF_INET, nonBlocking: Bool) throws(SystemError) -> FileDescriptor {
        let type =
            Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
            | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        return FileDescriptor(owning: try Syscall.retrying("socket", "") { Glibc.socket(family, type, 0) })
    }

    /// A TCP socket listening on `host:port` (IPv4 dotted quad; port 0 picks a free one, which
    /// ``boundPort(_:)`` tells), with SO_REUSEADDR so a restarted server can bind at once.
    /// Non-blocking: ``accept(_:sendTimeoutMilliseconds:)`` after `poll` never waits, even when
    /// the connection poll saw is gone by then.
    public static func listen(host: String, port: Int, backlog: Int32 = 512) throws(SystemError) -> FileDescriptor {
        var address = try ipv4Address(host: host, port: port)
        let fd = try tcpSocket(nonBlocking: true)
        try setOption(fd.rawValue, SOL_SOCKET, SO_REUSEADDR, 1)
        _ = try Syscall.retrying("bind", "\(host):\(port)") {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.bind(fd.rawValue, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        _ = try Syscall.retrying("listen", "\(host):\(port)") { Glibc.listen(fd.rawValue, backlog) }
        return fd
    }

    /// The local port a socket is bound to (`getsockname(2)`), IPv4.
    public static func boundPort(_ fd: borrowing FileDescriptor) throws(SystemError) -> Int {
        var bound = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = try Syscall.retrying("getsockname", "") {
            withUnsafeMutablePointer(to: &bound) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd.rawValue, $0, &length) }
            }
        }
        return Int(UInt16(bigEndian: bound.sin_port))
    }

    /// Accepts one connection, with TCP_NODELAY (replies are small and must not wait for Nagle)
    /// and a send timeout so a peer that never reads cannot hold a thread forever. The new socket
    /// blocks (Linux does not pass the listener's O_NONBLOCK on).
    ///
    /// Returns nil when there is nothing to accept: EAGAIN (the listener is non-blocking) or
    /// ECONNABORTED (the peer reset the connection between `poll` and `accept`).
    /// - Throws: ``SystemError`` for the rest, such as EMFILE when the descriptor table is full.
    public static func accept(_ listener: borrowing FileDescriptor, sendTimeoutMilliseconds: Int) throws(SystemError)
        -> FileDescriptor?
    {
        let raw: Int32
        do {
            raw = try Syscall.retrying("accept", "") { Glibc.accept(listener.rawValue, nil, nil) }
        } catch  where error.errno == .wouldBlock || error.errno == .connectionAborted {
            return nil
        }
        let fd = FileDescriptor(owning: raw)
        // accept4 is not exported to Swift here; the race with exec is moot, the server never execs.
        _ = fcntl(fd.rawValue, F_SETFD, FD_CLOEXEC)
        // A failure to tune the socket is not worth refusing the client for.
        try? setOption(fd.rawValue, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        var timeout = timeval(tv_sec: sendTimeoutMilliseconds / 1000, tv_usec: (sendTimeoutMilliseconds % 1000) * 1000)
        _ = setsockopt(fd.rawValue, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// A blocking TCP connection to `host:port` (IPv4), with TCP_NODELAY: for test clients and the load tool.
    public static func connect(host: String, port: Int) throws(SystemError) -> FileDescriptor {
        var address = try ipv4Address(host: host, port: port)
        let fd = try tcpSocket(nonBlocking: false)
        _ = try Syscall.retrying("connect", "\(host):\(port)") {
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd.rawValue, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        try setOption(fd.rawValue, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        return fd
    }

    /// Why ``connect(host:port:timeoutMilliseconds:)`` found no connection.
    public enum ConnectError: Error, Sendable, Equatable, CustomStringConvertible {
        /// `getaddrinfo` failed; `reason` is its `gai_strerror` text.
        case unresolved(host: String, reason: String)
        /// Every address refused, timed out or failed; `failure` says how the last one did.
        case unreachable(host: String, port: UInt16, failure: Failure)

        /// How the last address tried failed: typed, so callers sort it by errno, not by words.
        public enum Failure: Sendable, Equatable, CustomStringConvertible {
            /// `socket`, `connect`, `poll` or the connection's `SO_ERROR` gave this errno.
            case system(Errno)
            /// No answer before the deadline.
            case timedOut
            /// `getaddrinfo` gave no address to try.
            case noAddress

            public var description: String {
                switch self {
                case .system(let errno): errno.description
                case .timedOut: "timed out"
                case .noAddress: "no address"
                }
            }
        }

        public var description: String {
            switch self {
            case .unresolved(let host, let reason): "cannot resolve \(host): \(reason)"
            case .unreachable(let host, let port, let failure): "cannot connect to \(host):\(port): \(failure)"
            }
        }
    }

    /// A non-blocking TCP connection to `host:port` (a name or an address, IPv4 or IPv6), trying
    /// each address `getaddrinfo` gives for at most `timeoutMilliseconds`, with TCP_NODELAY.
    public static func connect(host: String, port: UInt16, timeoutMilliseconds: Int) throws(ConnectError)
        -> FileDescriptor
    {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw .unresolved(host: host, reason: String(cString: gai_strerror(status)))
        }
        defer { freeaddrinfo(list) }
        var lastFailure = ConnectError.Failure.noAddress
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let address = entry {
            entry = address.pointee.ai_next
            let fd: FileDescriptor
            do { fd = try tcpSocket(family: address.pointee.ai_family, nonBlocking: true) } catch {
                lastFailure = .system(error.errno)
                continue
            }
            if Glibc.connect(fd.rawValue, address.pointee.ai_addr, address.pointee.ai_addrlen) != 0 {
                let code = Errno.current
                guard code == .inProgress else {
                    lastFailure = .system(code)
                    continue
                }
                do {
                    let ready = try Poll.wait([fd.rawValue], writable: true, timeoutMilliseconds: timeoutMilliseconds)[
                        0]
                    guard ready.writable || ready.hungUp else {
                        lastFailure = .timedOut
                        continue
                    }
                } catch {
                    lastFailure = .system(error.errno)
                    continue
                }
                var failure: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                getsockopt(fd.rawValue, SOL_SOCKET, SO_ERROR, &failure, &length)
                guard failure == 0 else {
                    lastFailure = .system(Errno(rawValue: failure))
                    continue
                }
            }
            try? setOption(fd.rawValue, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            return fd
        }
        throw .unreachable(host: host, port: port, failure: lastFailure)
    }

    private static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) throws(SystemError) {
        var value = value
        _ = try Syscall.retrying("setsockopt", "") {
            setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Reads what is available, up to `buffer.count` bytes; 0 means the peer closed. On a
    /// non-blocking socket with nothing to read: ``SystemError/isWouldBlock``.
    public static func receive(_ fd: Int32, into buffer: inout [UInt8]) throws(SystemError) -> Int {
        try Syscall.retrying("recv", "") {
            buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
        }
    }

    /// One `send(2)` of what the kernel takes from `offset` on.
    private static func sendSome(_ fd: Int32, _ bytes: [UInt8], from offset: Int) throws(SystemError) -> Int {
        try Syscall.retrying("send", "") {
            bytes.withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
        }
    }

    /// Sends every byte on a blocking socket, looping over partial sends. EAGAIN means its
    /// SO_SNDTIMEO passed (``SystemError/isWouldBlock``).
    public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            offset += try sendSome(fd, bytes, from: offset)
        }
    }

    /// Sends every byte on a non-blocking socket, waiting up to `timeoutMilliseconds` each time
    /// the peer's window is full. False when it stayed full that long.
    public static func send(_ fd: Int32, _ bytes: [UInt8], timeoutMilliseconds: Int) throws(SystemError) -> Bool {
        var offset = 0
        while offset < bytes.count {
            do {
                offset += try sendSome(fd, bytes, from: offset)
            } catch  where error.isWouldBlock {
                guard try Poll.wait([fd], writable: true, timeoutMilliseconds: timeoutMilliseconds)[0].writable else {
                    return false
                }
            }
        }
        return true
    }

    /// Makes a socket non-blocking (`O_NONBLOCK`): a TLS connection waits in `poll` with its
    /// own deadlines instead of blocking in `recv` under a record that never completes.
    public static func setNonBlocking(_ fd: Int32) throws(SystemError) {
        let flags = try Syscall.retrying("fcntl", "") { fcntl(fd, F_GETFL) }
        _ = try Syscall.retrying("fcntl", "") { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Stops both directions: a thread blocked in `recv`, `accept` or `poll` on `fd` wakes up.
    /// The descriptor stays open until its owner closes it, so it cannot be reused under that thread.
    public static func shutdown(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Stops sending (the peer reads EOF after what was sent) but keeps receiving, so what the
    /// peer still sends can be drained instead of answered with a reset.
    public static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Raises the soft limit on open descriptors (RLIMIT_NOFILE) to the hard limit, since every
    /// connection holds one and the usual soft 1024 would make `accept` fail with EMFILE long
    /// before the hard limit. Returns the soft limit in force afterwards; a refusal leaves it as it was.
    @discardableResult
    public static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return Int(clamping: raised.rlim_cur) }
        }
        return Int(clamping: limit.rlim_cur)
    }
}
