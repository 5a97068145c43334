import ChatDomain
import ChatServer
import ChatStore
import ChatSystem
import ChatWire
import Foundation

/// Server POSTs/s as server-load measures it: 8 keep-alive clients, each on a thread of its
/// own, POST to one conversation for `seconds` after half a second of warm-up; a POST counts
/// once its 201 (sent only when the message is durable) is read.
enum PostLoad {
    struct Figures {
        var postsPerSecond: Double
        var p50Milliseconds: Double
        var p99Milliseconds: Double
    }

    static func measure(_ fixture: ServerFixture, seconds: Int) throws -> Figures {
        let counts = Lock([Int](repeating: 0, count: 8))
        let latencies = Lock([Double]())
        let failures = Lock([String]())
        let warmUpEnds = Stats.now() + 500_000_000
        let ends = warmUpEnds + UInt64(seconds) * 1_000_000_000
        let group = DispatchGroup()
        let port = fixture.server.port
        for worker in 0..<8 {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do {
                    let client = try KeepAliveClient(port: port, token: "p\(worker)-token")
                    var local: [Double] = []
                    while true {
                        let start = Stats.now()
                        if start >= ends { break }
                        let status = try client.post(conversation: "posts", text: "load \(worker)")
                        guard status == 201 else { throw Subprocess.Failure(description: "POST answered \(status)") }
                        if start >= warmUpEnds { local.append(Double(Stats.now() - start) / 1e6) }
                    }
                    counts.withLock { $0[worker] = local.count }
                    latencies.withLock { $0 += local }
                } catch {
                    failures.withLock { $0.append("client \(worker): \(error)") }
                }
            }
        }
        group.wait()
        if let failure = failures.withLock({ $0.first }) { throw Subprocess.Failure(description: failure) }
        let total = counts.withLock { $0.reduce(0, +) }
        let percentiles = Stats.p50p99(latencies.withLock { $0 })
        return Figures(postsPerSecond: Double(total) / Double(seconds), p50Milliseconds: percentiles.p50, p99Milliseconds: percentiles.p99)
    }

    /// One keep-alive HTTP/1.1 connection, one request at a time.
    private final class KeepAliveClient {
        private let socket: FileDescriptor
        private var fd: Int32 { socket.rawValue }
        private let token: String
        private var received: [UInt8] = []
        private var buffer = [UInt8](repeating: 0, count: 64 * 1024)

        init(port: Int, token: String) throws {
            socket = try Socket.connect(host: "127.0.0.1", port: port)
            self.token = token
        }

        func post(conversation: String, text: String) throws -> Int {
            let body = JSONWriter.encode(.object([("clientMessageId", .string(ClientMessageID.random().rawValue)), ("text", .string(text))]))
            let request = HTTPRequest(method: "POST", target: HTTPRequestTarget("/v1/conversations/\(conversation)/messages"),
                                      headers: ["Host": "127.0.0.1", "Authorization": "Bearer \(token)", "Content-Type": "application/json"], body: body)
            try Socket.sendAll(fd, request.serialized())
            while true {
                var parser = HTTPResponseHeadParser()
                parser.feed(received)
                if let (head, remainder) = try parser.parse() {
                    let length = Int(head.headers["Content-Length"] ?? "0") ?? 0
                    if remainder.count >= length {
                        received = Array(remainder.dropFirst(length))
                        return head.status.code
                    }
                }
                let count = try Socket.receive(fd, into: &buffer)
                guard count > 0 else { throw Subprocess.Failure(description: "the server closed the connection") }
                received += buffer[0..<count]
            }
        }
    }
}
