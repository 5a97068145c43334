import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A listener on 127.0.0.1 that records the head of every request it gets, byte for byte, and
/// answers each with the same response (401 unless told): what a server would see of a
/// request, header injection included.
final class HeadRecorder: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var heads: [String] = []

    /// Every request head received so far, start line and header lines, CRLF kept.
    var receivedHeads: [String] { lock.withLock { heads } }
    var url: String { "http://127.0.0.1:\(port)" }

    private let answer: [UInt8]

    /// `status` and `headers` make the one answer every request gets.
    init(status: String = "401 Unauthorized", headers: [String] = [], body: String = #"{"error":"unknown token"}"#)
        throws
    {
        answer =
            Array(
                (["HTTP/1.1 \(status)", "Content-Length: \(body.utf8.count)", "Connection: close"] + headers).joined(
                    separator: "\r\n"
                ).utf8)
            + Array("\r\n\r\n\(body)".utf8)
        let (descriptor, number) = try listenOnLoopback()
        listener = descriptor
        port = number
        Thread { [self] in acceptLoop() }.start()
    }

    /// Wakes the accept loop, which closes the listener itself.
    func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    deinit { stop() }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            Thread { [self] in serve(client) }.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { close(client) }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
            let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return }
            received += chunk[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        let head = text.components(separatedBy: "\r\n\r\n")[0] + "\r\n"
        lock.withLock { heads.append(head) }
        _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }
}

/// A listening TCP socket on 127.0.0.1 at a port the kernel picks: the descriptor and the port.
func listenOnLoopback() throws -> (Int32, UInt16) {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    var address = loopbackAddress(port: 0)
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard bound == 0, listen(listener, 16) == 0 else {
        close(listener)
        throw POSIXError(.EADDRINUSE)
    }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    return (listener, UInt16(bigEndian: address.sin_port))
}

/// The IPv4 loopback address with `port`.
func loopbackAddress(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = port.bigEndian
    return address
}
