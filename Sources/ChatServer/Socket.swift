#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed socket call: which call and errno, with the system's text for it.
public struct SocketError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The call that failed, such as `bind 127.0.0.1:8080`.
    public var operation: String
    public var errno: Int32

    /// Whether the address was taken (EADDRINUSE).
    public var isAddressInUse: Bool { errno == EADDRINUSE }

    public var description: String {
        let hint: String = switch errno {
        case EADDRINUSE: "; another process listens on that port: pick another with --port, or --port 0 for any free one"
        case EACCES: "; ports below 1024 need privileges: use a higher --port"
        case EADDRNOTAVAIL: "; that address is not on this machine: use 127.0.0.1"
        default: ""
        }
        return "\(operation): \(String(cString: strerror(errno)))\(hint)"
    }

    /// The peer went away (reset, broken pipe): the connection is over, nobody to tell.
    public var isDisconnect: Bool { errno == ECONNRESET || errno == EPIPE || errno == ENOTCONN }
    /// A send or receive timed out (SO_SNDTIMEO / SO_RCVTIMEO).
    public var isTimeout: Bool { errno == EAGAIN || errno == EWOULDBLOCK }
}

/// What `poll` reported for one descriptor.
public struct PollResult: Sendable {
    public var readable: Bool
    /// Hang-up or error: reading gives EOF or the error.
    public var hungUp: Bool
}

/// The one file of the server that talks to Glibc for sockets: TCP listen/accept/recv/send,
/// `poll`, and an `eventfd` to wake a thread that polls. Each call is wrapped once, retried on
/// EINTR, and its errno turned into a ``SocketError``. Sends use `MSG_NOSIGNAL`, so a peer that
/// went away gives EPIPE instead of killing the process with SIGPIPE.
///
/// Public so that the test clients and the load tool open connections the same way.
public enum Socket {
    private static func retrying<T: BinaryInteger>(_ operation: @autoclosure () -> String, _ call: () -> T) throws(SocketError) -> T {
        while true {
            let result = call()
            if result >= 0 { return result }
            let code = Glibc.errno
            if code == EINTR { continue }
            throw SocketError(operation: operation(), errno: code)
        }
    }

    /// `host:port` as an IPv4 socket address (the host a dotted quad).
    private static func ipv4Address(host: String, port: Int) throws(SocketError) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(truncatingIfNeeded: port).bigEndian)
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw SocketError(operation: "parse address \(host)", errno: EINVAL)
        }
        return address
    }

    /// A TCP socket listening on `host:port` (IPv4 dotted quad; port 0 picks a free one),
    /// with SO_REUSEADDR so a restarted server can bind at once. Returns the descriptor and
    /// the port actually bound.
    static func listen(host: String, port: Int, backlog: Int32 = 512) throws(SocketError) -> (fd: Int32, port: Int) {
        var address = try ipv4Address(host: host, port: port)
        let fd = try retrying("socket") { Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do throws(SocketError) {
            try setOption(fd, SOL_SOCKET, SO_REUSEADDR, 1)
            _ = try retrying("bind \(host):\(port)") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            }
            _ = try retrying("listen \(host):\(port)") { Glibc.listen(fd, backlog) }
            var bound = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = try retrying("getsockname") {
                withUnsafeMutablePointer(to: &bound) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
                }
            }
            return (fd, Int(UInt16(bigEndian: bound.sin_port)))
        } catch {
            close(fd)
            throw error
        }
    }

    /// A TCP connection to `host:port` (IPv4), with TCP_NODELAY: for test clients and the load tool.
    public static func connect(host: String, port: Int) throws(SocketError) -> Int32 {
        var address = try ipv4Address(host: host, port: port)
        let fd = try retrying("socket") { Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0) }
        do throws(SocketError) {
            _ = try retrying("connect \(host):\(port)") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            }
            try setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    /// Accepts one connection, with TCP_NODELAY (replies are small and must not wait for Nagle)
    /// and a send timeout so a peer that never reads cannot hold a thread forever.
    static func accept(_ listener: Int32, sendTimeoutMilliseconds: Int) throws(SocketError) -> Int32 {
        let fd = try retrying("accept") { Glibc.accept(listener, nil, nil) }
        // accept4 is not exported to Swift here; the race with exec is moot, the server never execs.
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        // A failure to tune the socket is not worth refusing the client for.
        try? setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        var timeout = timeval(tv_sec: sendTimeoutMilliseconds / 1000, tv_usec: (sendTimeoutMilliseconds % 1000) * 1000)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    private static func setOption(_ fd: Int32, _ level: Int32, _ name: Int32, _ value: Int32) throws(SocketError) {
        var value = value
        _ = try retrying("setsockopt") { setsockopt(fd, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) }
    }

    /// Reads what is available, up to `buffer.count` bytes; 0 means the peer closed.
    public static func receive(_ fd: Int32, into buffer: inout [UInt8]) throws(SocketError) -> Int {
        try retrying("recv") {
            buffer.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
        }
    }

    /// Sends every byte, looping over partial sends; never raises SIGPIPE.
    public static func sendAll(_ fd: Int32, _ bytes: [UInt8]) throws(SocketError) {
        var offset = 0
        while offset < bytes.count {
            let sent = try retrying("send") {
                bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            }
            offset += sent
        }
    }

    /// Waits until one of `fds` is readable or hung up, or `timeoutMilliseconds` pass (-1: forever).
    /// Returns one result per descriptor, in order; all false on timeout.
    public static func poll(_ fds: [Int32], timeoutMilliseconds: Int) throws(SocketError) -> [PollResult] {
        var entries = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let timeout = Int32(clamping: timeoutMilliseconds)
        _ = try retrying("poll") { entries.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, nfds_t($0.count), timeout) } }
        return entries.map {
            PollResult(
                readable: $0.revents & Int16(POLLIN) != 0,
                hungUp: $0.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0
            )
        }
    }

    /// Stops both directions: a thread blocked in `recv`, `accept` or `poll` on `fd` wakes up.
    /// The descriptor stays open until ``close(_:)``, so it cannot be reused under that thread.
    public static func shutdown(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Raises the soft limit on open descriptors (RLIMIT_NOFILE) to the hard limit, since every
    /// connection holds one and the usual soft 1024 would make `accept` fail with EMFILE long
    /// before the hard limit. Returns the soft limit in force afterwards; a refusal leaves it as it was.
    @discardableResult
    static func raiseDescriptorLimit() -> rlim_t {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return raised.rlim_cur }
        }
        return limit.rlim_cur
    }

    /// Stops sending (the peer reads EOF after what was sent) but keeps receiving, so what the
    /// peer still sends can be drained instead of answered with a reset.
    static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    public static func close(_ fd: Int32) {
        // Never retried on EINTR: on Linux the descriptor is gone either way.
        _ = Glibc.close(fd)
    }

    /// A pipe for waking a thread that polls: ``signal(_:)`` makes its read end readable,
    /// ``drain(_:)`` makes it quiet again. Both ends are non-blocking and close-on-exec
    /// (`eventfd` and `pipe2` are not exported to Swift on this toolchain).
    static func makeWakeUp() throws(SocketError) -> WakeUp {
        var ends: [Int32] = [-1, -1]
        _ = try retrying("pipe") { ends.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress) } }
        for fd in ends {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        return WakeUp(readEnd: ends[0], writeEnd: ends[1])
    }

    static func signal(_ wakeUp: WakeUp) {
        var byte: UInt8 = 1
        // A full pipe already wakes the reader: EAGAIN is fine.
        _ = Glibc.write(wakeUp.writeEnd, &byte, 1)
    }

    static func drain(_ wakeUp: WakeUp) {
        var bytes = [UInt8](repeating: 0, count: 256)
        while bytes.withUnsafeMutableBytes({ Glibc.read(wakeUp.readEnd, $0.baseAddress, $0.count) }) > 0 {}
    }

    static func close(_ wakeUp: WakeUp) {
        close(wakeUp.readEnd)
        close(wakeUp.writeEnd)
    }
}

/// The two ends of a wake-up pipe: poll ``readEnd``, signal through ``writeEnd``.
struct WakeUp: Sendable {
    let readEnd: Int32
    let writeEnd: Int32
}
