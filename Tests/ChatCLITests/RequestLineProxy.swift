import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP relay on 127.0.0.1 in front of a server that records the request line of every HTTP
/// request passing through (`GET /v1/conversations/dinner/messages?after=5&limit=50`): what a
/// client asked for, counted where the server would count it. Given `losingAnswerTo`, the
/// first request whose line it matches reaches the server, and its answer never reaches the
/// client: the connection is cut in the answer's status line (the server did the work).
final class RequestLineProxy: @unchecked Sendable {
    let port: UInt16
    private let upstreamPort: UInt16
    private let listener: Int32
    private let lock = NSLock()
    private var lines: [String] = []
    private var losesAnswer: ((String) -> Bool)?

    var url: String { "http://127.0.0.1:\(port)" }
    /// Every request line seen so far, in order of arrival per connection.
    var requestLines: [String] { lock.withLock { lines } }

    init(upstreamPort: UInt16, losingAnswerTo losesAnswer: ((String) -> Bool)? = nil) throws {
        self.upstreamPort = upstreamPort
        self.losesAnswer = losesAnswer
        let (descriptor, number) = try listenOnLoopback()
        listener = descriptor
        port = number
        Thread { [self] in acceptLoop() }.start()
    }

    deinit { shutdown(listener, Int32(SHUT_RDWR)) }

    private func acceptLoop() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            var address = loopbackAddress(port: upstreamPort)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                close(client)
                close(upstream)
                continue
            }
            // Each direction on its own thread; the first to end shuts both sockets down, the
            // last closes them (never before, so no descriptor is reused under the other thread).
            let pair = Pair(client, upstream)
            Thread { [self] in
                pump(from: client, to: upstream, record: true, pair: pair)
                pair.finished()
            }.start()
            Thread { [self] in
                pump(from: upstream, to: client, record: false, pair: pair)
                pair.finished()
            }.start()
        }
    }

    private func pump(from source: Int32, to target: Int32, record: Bool, pair: Pair) {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var pending: [UInt8] = []
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            if record {
                // Request bodies here are small JSON objects: a line starting with a method
                // and ending in HTTP/1.1 is a request line.
                pending += chunk[0..<count]
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self).trimmingCharacters(
                        in: .whitespacesAndNewlines)
                    pending.removeSubrange(...newline)
                    if line.hasSuffix(" HTTP/1.1"), ["GET ", "POST ", "PUT "].contains(where: { line.hasPrefix($0) }) {
                        let request = String(line.dropLast(" HTTP/1.1".count))
                        let loses = lock.withLock {
                            lines.append(request)
                            guard let losesAnswer, losesAnswer(request) else { return false }
                            self.losesAnswer = nil
                            return true
                        }
                        // HTTP/1.1 without pipelining: every earlier answer on this connection
                        // was relayed before this request was sent.
                        if loses { pair.losesAnswer = true }
                    }
                }
            } else if pair.losesAnswer {
                // A few bytes of the status line, then the cut: a client retries a request whose
                // reused connection closed before any answer byte at once, as a stale connection.
                _ = chunk.withUnsafeBytes { send(target, $0.baseAddress!, min(count, 9), Int32(MSG_NOSIGNAL)) }
                break
            }
            var sent = 0
            while sent < count {
                let written = chunk.withUnsafeBytes {
                    send(target, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL))
                }
                if written <= 0 { break }
                sent += written
            }
            if sent < count { break }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(target, Int32(SHUT_RDWR))
    }

    /// The two sockets of one relayed connection, closed when both directions are done.
    private final class Pair: @unchecked Sendable {
        private let sockets: (Int32, Int32)
        private let lock = NSLock()
        private var running = 2
        private var losing = false
        /// The answer coming back is to be dropped, and the connection cut.
        var losesAnswer: Bool {
            get { lock.withLock { losing } }
            set { lock.withLock { losing = newValue } }
        }

        init(_ first: Int32, _ second: Int32) { sockets = (first, second) }

        func finished() {
            let last = lock.withLock {
                running -= 1
                return running == 0
            }
            if last {
                close(sockets.0)
                close(sockets.1)
            }
        }
    }
}
