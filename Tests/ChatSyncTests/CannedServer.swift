import ChatWire
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A hostile or broken "server" for tests of the client: answers each request with whatever
/// `respond` says, byte for byte, over a real socket on 127.0.0.1.
///
/// Not a chatdir server, and not a second way to run one: it knows no users, conversations or
/// sequences. It exists for the answers the reference server never gives (a status it has no
/// reason for, a body that breaks the wire contract, a reply that trickles one byte a second, a
/// WebSocket upgrade followed by silence), which is what the client's defences are tested
/// against. A test that needs a server that behaves, faults included, uses `TestServer`.
final class CannedServer: @unchecked Sendable {
    struct Reply {
        var status: Int
        var body: [UInt8]
        var headers: [String: String] = [:]
        /// Sends the answer one byte at a time with this pause between bytes (a server that trickles).
        var trickle: Duration?

        static func json(_ status: Int, _ text: String) -> Reply { Reply(status: status, body: Array(text.utf8)) }
    }

    /// What `GET /v1/live` with an `Upgrade: websocket` header gets.
    enum Live: Sendable {
        /// Whatever `respond` says, like any other request.
        case answer
        /// 101, then the socket stays open and silent until the client closes it.
        case holdOpen
        /// 101, then the socket is closed at once: "accepted then closed".
        case closeAtOnce
        /// 101, these text frames, then the socket stays open and silent.
        case send([String])
    }

    let port: UInt16
    private let live: Live
    private let listener: Int32
    private let respond: @Sendable (_ method: String, _ path: String) -> Reply
    private let lock = NSLock()
    private var requests: [String] = []
    /// The sockets being served, so `stop` can end their threads; guarded by `lock`.
    private var clients: Set<Int32> = []
    private var stopped = false
    /// Entered by the accept loop and by every serving thread; `stop` waits for all of them, so
    /// no thread of this server outlives its test (one still holding its buffers when the
    /// process exits is what LeakSanitizer reports as a leak).
    private let threads = DispatchGroup()

    var seenRequests: [String] { lock.withLock { requests } }

    init(live: Live = .answer, _ respond: @escaping @Sendable (_ method: String, _ path: String) -> Reply) throws {
        self.respond = respond
        self.live = live
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        self.listener = listener
        threads.enter()
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Wakes the accept loop and every serving thread (each closes its own socket: closing one
    /// here could hand its number to another test's socket while a thread is about to use it),
    /// then waits until all of them have returned. Calling it again does nothing more.
    func stop() {
        lock.withLock {
            stopped = true
            shutdown(listener, Int32(SHUT_RDWR))
            for client in clients { shutdown(client, Int32(SHUT_RDWR)) }
        }
        _ = threads.wait(timeout: .now() + 30)
    }

    private func acceptLoop() {
        defer {
            close(listener)
            threads.leave()
        }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 { return }
            let admitted = lock.withLock {
                if stopped { return false }
                clients.insert(client)
                return true
            }
            guard admitted else {
                close(client)
                return
            }
            threads.enter()
            Thread { [self] in serve(client) }.start()
        }
    }

    private func serve(_ client: Int32) {
        defer {
            lock.withLock { _ = clients.remove(client) }
            close(client)
            threads.leave()
        }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            // Read one request head (and its small body), answer, and go on (keep-alive).
            while !buffer.containsHeadEnd {
                let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return }
                buffer += chunk[0..<count]
            }
            let headEnd = buffer.headEnd
            let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
            let lines = head.components(separatedBy: "\r\n")
            let parts = lines[0].split(separator: " ")
            let length =
                lines.first { $0.lowercased().hasPrefix("content-length:") }.flatMap {
                    Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces))
                } ?? 0
            while buffer.count < headEnd + 4 + length {
                let count = chunk.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                if count <= 0 { return }
                buffer += chunk[0..<count]
            }
            buffer.removeFirst(headEnd + 4 + length)
            let method = String(parts[0])
            let path = String(parts[1])
            lock.withLock { requests.append("\(method) \(path)") }
            if path == "/v1/live", !live.isAnswer,
                let key = lines.first(where: { $0.lowercased().hasPrefix("sec-websocket-key:") })?.split(
                    separator: ":", maxSplits: 1
                ).last
            {
                let accept = WebSocketHandshake.acceptValue(forKey: key.trimmingCharacters(in: .whitespaces))
                let upgrade =
                    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n"
                guard sendAll(client, Array(upgrade.utf8)) else { return }
                switch live {
                case .answer, .closeAtOnce: return
                case .holdOpen: break
                case .send(let texts):
                    let socket = WebSocketConnection(role: .server)
                    var frames: [UInt8] = []
                    for text in texts { frames += socket.text(text) }
                    guard sendAll(client, frames) else { return }
                }
                while chunk.withUnsafeMutableBytes({ recv(client, $0.baseAddress, $0.count, 0) }) > 0 {}
                return
            }
            let reply = respond(method, path)
            var text = "HTTP/1.1 \(reply.status) X\r\nContent-Length: \(reply.body.count)\r\n"
            for (name, value) in reply.headers { text += "\(name): \(value)\r\n" }
            text += "\r\n"
            let bytes = Array(text.utf8) + reply.body
            if let pause = reply.trickle {
                for byte in bytes {
                    guard !lock.withLock({ stopped }), sendAll(client, [byte]) else { return }
                    Thread.sleep(
                        forTimeInterval: Double(pause.components.seconds) + Double(pause.components.attoseconds) / 1e18)
                }
            } else if !sendAll(client, bytes) {
                return
            }
        }
    }

    private func sendAll(_ client: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes {
                send(client, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }
}

extension Array where Element == UInt8 {
    fileprivate var headEnd: Int {
        guard count >= 4 else { return -1 }
        for index in 0...(count - 4)
        where self[index] == 13 && self[index + 1] == 10 && self[index + 2] == 13 && self[index + 3] == 10 {
            return index
        }
        return -1
    }

    fileprivate var containsHeadEnd: Bool { headEnd >= 0 }
}

extension CannedServer.Live {
    fileprivate var isAnswer: Bool {
        if case .answer = self { return true }
        return false
    }
}
