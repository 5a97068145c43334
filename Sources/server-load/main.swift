// server-load: measures the reference server on loopback (numbers for BENCHMARKS.md).
//
//   swift run -c release server-load [--seconds S] [--messages N] [--dir DIR]
//
// 1. POSTs/s: 8 keep-alive clients POST to one conversation for S seconds (default 5), every
//    201 durable (group commit, fsync) before it is counted.
// 2. Live fan-out: 50 members each hold a /v1/live socket; N messages (default 200) are POSTed
//    one at a time; for each, the time from sending the POST to each member's receiving the
//    event is recorded. Reports p50/p90/p99 over all deliveries.
//
// It starts an in-process server on a fresh data directory (under DIR, default /var/tmp, which
// must be on a real disk for the fsync to count), so client and server share the 2 cores.

import ChatDomain
import ChatServer
import ChatStore
import ChatSystem
import ChatWire
import Dispatch

#if canImport(Glibc)
import Glibc
#endif

struct LoadError: Error, CustomStringConvertible {
    var description: String
}

func argument(_ name: String, default value: Int) -> Int {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count, let number = Int(arguments[index + 1]) else { return value }
    return number
}

func stringArgument(_ name: String, default value: String) -> String {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return value }
    return arguments[index + 1]
}

/// A keep-alive HTTP connection that POSTs and reads one response at a time.
final class Client {
    private let socket: FileDescriptor
    var fd: Int32 { socket.rawValue }
    private var received: [UInt8] = []
    private var buffer = [UInt8](repeating: 0, count: 65536)

    init(port: Int) throws {
        socket = try Socket.connect(host: "127.0.0.1", port: port)
    }

    func post(conversation: String, token: String, text: String) throws -> (status: Int, body: [UInt8]) {
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
                    return (head.status.code, Array(remainder.prefix(length)))
                }
            }
            let count = try Socket.receive(fd, into: &buffer)
            guard count > 0 else { throw LoadError(description: "server closed the connection") }
            received += buffer[0..<count]
        }
    }
}

/// A /v1/live socket whose thread records when each message event arrives.
final class LiveReader: Sendable {
    private let socket: FileDescriptor
    var fd: Int32 { socket.rawValue }
    /// sequence → monotonic nanoseconds of arrival.
    let arrivals = Lock<[Int: UInt64]>([:])

    init(port: Int, token: String) throws {
        socket = try Socket.connect(host: "127.0.0.1", port: port)
        let handshake = WebSocketClientHandshake(host: "127.0.0.1:\(port)", target: HTTPRequestTarget("/v1/live"), headers: ["Authorization": "Bearer \(token)"])
        try Socket.sendAll(fd, handshake.request.serialized())
        var parser = HTTPResponseHeadParser()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = try Socket.receive(fd, into: &buffer)
            guard count > 0 else { throw LoadError(description: "live upgrade refused") }
            parser.feed(buffer[0..<count])
            if let (head, remainder) = try parser.parse() {
                try handshake.validate(head)
                let initial = remainder
                Thread.start { [self] in read(initial) }
                return
            }
        }
    }

    private func read(_ initial: [UInt8]) {
        var connection = WebSocketConnection(role: .client)
        connection.feed(initial)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            while let event = try? connection.nextEvent() {
                guard case let .text(text) = event else { continue }
                let now = Clock.monotonicNanoseconds()
                if let value = try? JSONParser.parse(text), case let .object(members)? = value["message"],
                   case let .integer(sequence)? = members.first(where: { $0.key == "sequence" })?.value {
                    arrivals.withLock { $0[sequence] = now }
                }
            }
            guard let count = try? Socket.receive(fd, into: &buffer), count > 0 else { return }
            connection.feed(buffer[0..<count])
        }
    }
}

enum Thread {
    /// A detached POSIX thread (the load tool's clients block, like the server's connections).
    static func start(_ body: @escaping @Sendable () -> Void) {
        final class Box { let body: @Sendable () -> Void; init(_ body: @escaping @Sendable () -> Void) { self.body = body } }
        let context = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Box>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        }, context) == 0 else {
            fatalError("server-load: cannot start a thread")
        }
        pthread_detach(thread)
    }
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func format(_ value: Double) -> String {
    let scaled = (value * 100).rounded() / 100
    return String(scaled)
}

func main() throws {
    let seconds = argument("--seconds", default: 5)
    let messageCount = argument("--messages", default: 200)
    let base = stringArgument("--dir", default: "/var/tmp")
    let directory = "\(base)/chatdir-server-load-\(getpid())"

    var tokens: [String: UserID] = [:]
    var members: [UserID] = []
    for index in 0..<50 {
        let user = try UserID("u\(index < 10 ? "0" : "")\(index)")
        tokens["\(user)-token"] = user
        members.append(user)
    }
    try DataDirectory.create(at: directory, users: UserTokens(tokens), conversations: [
        try ConversationID("posts"): ConversationInfo(title: "POST load", members: Array(members.prefix(8))),
        try ConversationID("fanout"): ConversationInfo(title: "Fan-out", members: members),
    ])
    let server = try ChatServer(configuration: ServerConfiguration(dataDirectory: directory, port: 0))
    try server.start()
    print("server-load: server at \(server.url), data in \(directory)")

    // 1. POSTs per second from 8 keep-alive clients.
    let counts = Lock<[Int]>(Array(repeating: 0, count: 8))
    let latencies = Lock<[Double]>([])
    let failures = Lock<[String]>([])
    let warmUpEnds = Clock.monotonicNanoseconds() + 500_000_000
    let ends = warmUpEnds + UInt64(seconds) * 1_000_000_000
    let done = DispatchGroup()
    for worker in 0..<8 {
        done.enter()
        let port = server.port
        Thread.start {
            defer { done.leave() }
            do {
                let client = try Client(port: port)
                var local: [Double] = []
                var count = 0
                while true {
                    let start = Clock.monotonicNanoseconds()
                    if start >= ends { break }
                    let response = try client.post(conversation: "posts", token: "u0\(worker)-token", text: "load \(worker)")
                    guard response.status == 201 else { throw LoadError(description: "POST answered \(response.status)") }
                    if start >= warmUpEnds {
                        count += 1
                        local.append(Double(Clock.monotonicNanoseconds() - start) / 1e6)
                    }
                }
                counts.withLock { $0[worker] = count }
                latencies.withLock { $0 += local }
            } catch {
                failures.withLock { $0.append("client \(worker): \(error)") }
            }
        }
    }
    done.wait()
    if let failure = failures.withLock({ $0.first }) { throw LoadError(description: failure) }
    let total = counts.withLock { $0.reduce(0, +) }
    let postLatencies = latencies.withLock { $0 }.sorted()
    print("POST: \(total) messages in \(seconds) s from 8 keep-alive clients = \(total / seconds) POSTs/s; latency ms p50 \(format(percentile(postLatencies, 0.5))) p99 \(format(percentile(postLatencies, 0.99)))")

    // 2. Live fan-out to 50 members.
    let readers = try members.map { try LiveReader(port: server.port, token: "\($0)-token") }
    for member in members {
        while server.liveSocketCount(for: member) == 0 { SystemThread.sleep(milliseconds: 1) }
    }
    let poster = try Client(port: server.port)
    var sentAt: [Int: UInt64] = [:]
    var repliedAt: [Int: UInt64] = [:]
    for index in 0..<messageCount {
        let start = Clock.monotonicNanoseconds()
        let response = try poster.post(conversation: "fanout", token: "u00-token", text: "fan-out \(index)")
        let replied = Clock.monotonicNanoseconds()
        guard response.status == 201, case let .integer(sequence)? = try JSONParser.parse(response.body)["sequence"] else {
            throw LoadError(description: "fan-out POST answered \(response.status)")
        }
        sentAt[sequence] = start
        repliedAt[sequence] = replied
        // One message in flight at a time: wait until all 50 have it (at most 2 s).
        let deadline = Clock.monotonicMilliseconds() + 2000
        while readers.contains(where: { reader in reader.arrivals.withLock { $0[sequence] == nil } }), Clock.monotonicMilliseconds() < deadline {
            sched_yield()
        }
    }
    var fromPost: [Double] = []
    var fromReply: [Double] = []
    var missing = 0
    for reader in readers {
        let arrivals = reader.arrivals.withLock { $0 }
        for (sequence, start) in sentAt {
            guard let arrived = arrivals[sequence], let replied = repliedAt[sequence] else { missing += 1; continue }
            fromPost.append(Double(arrived - start) / 1e6)
            fromReply.append((Double(arrived) - Double(replied)) / 1e6)
        }
    }
    fromPost.sort()
    fromReply.sort()
    print("fan-out: \(messageCount) messages × 50 members = \(fromPost.count) deliveries (\(missing) missing)")
    print("  POST sent → event received, ms: p50 \(format(percentile(fromPost, 0.5))) p90 \(format(percentile(fromPost, 0.9))) p99 \(format(percentile(fromPost, 0.99)))")
    print("  201 received → event received, ms: p50 \(format(percentile(fromReply, 0.5))) p90 \(format(percentile(fromReply, 0.9))) p99 \(format(percentile(fromReply, 0.99)))")

    server.stop()
    _ = readers
    removeTree(directory)
}

/// Removes the load run's data directory (`rm -rf`).
func removeTree(_ path: String) {
    if Sys.kind(of: path) == .directory {
        for name in (try? Sys.listDirectory(path)) ?? [] { removeTree(path + "/" + name) }
        rmdir(path)
    } else {
        unlink(path)
    }
}

do {
    try main()
} catch {
    print("server-load: \(error)")
    exit(1)
}
