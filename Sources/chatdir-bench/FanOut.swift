import ChatDomain
import ChatProtocol
import ChatServer
import ChatStore
import ChatSystem
import ChatWire
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Live fan-out (`--only server`): every member of the fixture's `fanout` conversation holds a
/// `/v1/live` socket; `count` messages are POSTed one at a time; for each, the time from sending
/// the POST (and from reading its 201) to each member's receiving the event is recorded.
enum FanOut {
    struct Figures {
        /// POST sent → event received, ms, over all deliveries.
        var fromPostP50: Double
        var fromPostP99: Double
        /// 201 read → event received, ms (negative when the event beat the 201).
        var fromReplyP50: Double
        var fromReplyP99: Double
        var members: Int
        var deliveries: Int
        var missing: Int
    }

    static func measure(_ fixture: ServerFixture, count: Int) throws -> Figures {
        let port = fixture.server.port
        let readers = try ServerFixture.fanOutMembers.map { try LiveReader(port: port, token: "\($0)-token") }
        defer { for reader in readers { reader.stop() } }
        let ready = Stats.now() + 10_000_000_000
        for member in ServerFixture.fanOutMembers {
            while fixture.server.liveSocketCount(for: member) == 0 {
                guard Stats.now() < ready else {
                    throw Subprocess.Failure(
                        description: "fan-out: \(member)'s live socket was not registered within 10 s")
                }
                sched_yield()
            }
        }
        let poster = try KeepAliveClient(port: port, token: "\(ServerFixture.fanOutMembers[0])-token")
        var sentAt: [Int: UInt64] = [:]
        var repliedAt: [Int: UInt64] = [:]
        for index in 0..<count {
            let start = Stats.now()
            let response = try poster.post(conversation: ServerFixture.id("fanout"), text: "fan-out \(index)")
            let replied = Stats.now()
            guard response.status == 201, let message = try? WireDecoder.acceptedMessage(response.body) else {
                throw Subprocess.Failure(description: "fan-out POST answered \(response.status)")
            }
            sentAt[message.sequence] = start
            repliedAt[message.sequence] = replied
            // One message in flight at a time: wait until every member has it (at most 2 s).
            let deadline = Stats.now() + 2_000_000_000
            while readers.contains(where: { $0.arrival(of: message.sequence) == nil }), Stats.now() < deadline {
                sched_yield()
            }
        }
        var fromPost: [Double] = []
        var fromReply: [Double] = []
        var missing = 0
        for reader in readers {
            for (sequence, start) in sentAt {
                guard let arrived = reader.arrival(of: sequence), let replied = repliedAt[sequence] else {
                    missing += 1
                    continue
                }
                fromPost.append(Double(arrived - start) / 1e6)
                fromReply.append((Double(arrived) - Double(replied)) / 1e6)
            }
        }
        let post = Stats.p50p99(fromPost)
        let reply = Stats.p50p99(fromReply)
        return Figures(
            fromPostP50: post.p50, fromPostP99: post.p99, fromReplyP50: reply.p50, fromReplyP99: reply.p99,
            members: readers.count, deliveries: fromPost.count, missing: missing)
    }

    /// A `/v1/live` socket whose own thread records when each message event arrives.
    final class LiveReader: Sendable {
        /// The socket until the reading thread closes it (nil from then on), so ``stop()`` never
        /// shuts down a number that was reused.
        private let socket: Lock<FileDescriptor?>
        /// Its number, for the reads of this reader's own thread (which alone closes it).
        private let fd: Int32
        /// sequence → monotonic nanoseconds of arrival.
        private let arrivals = Lock<[Int: UInt64]>([:])

        init(port: Int, token: String) throws {
            let connected = try Socket.connect(host: "127.0.0.1", port: port)
            fd = connected.rawValue
            socket = Lock(connected)
            let handshake = WebSocketClientHandshake(
                host: "127.0.0.1:\(port)", target: HTTPRequestTarget(Endpoint.live.path),
                headers: ["Authorization": "Bearer \(token)"])
            do {
                try Socket.sendAll(fd, handshake.request.serialized())
                var parser = HTTPResponseHeadParser()
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = try Socket.receive(fd, into: &buffer)
                    guard count > 0 else {
                        throw Subprocess.Failure(description: "fan-out: the live upgrade was refused")
                    }
                    parser.feed(buffer[0..<count])
                    if let (head, remainder) = try parser.parse() {
                        try handshake.validate(head)
                        Thread.detachNewThread { [self] in read(remainder) }
                        return
                    }
                }
            } catch {
                socket.withLock { $0.take() }?.close()
                throw error
            }
        }

        func arrival(of sequence: Int) -> UInt64? { arrivals.withLock { $0[sequence] } }

        /// Ends the reading thread (it closes the socket).
        func stop() {
            socket.withLock { socket in if let number = socket?.rawValue { Socket.shutdown(number) } }
        }

        private func read(_ initial: [UInt8]) {
            var connection = WebSocketConnection(role: .client)
            connection.feed(initial)
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                while let event = try? connection.nextEvent() {
                    guard case .text(let text) = event else { continue }
                    let now = Stats.now()
                    if case .message(_, let message)? = try? WireDecoder.liveEvent(text) {
                        arrivals.withLock { $0[message.sequence] = now }
                    }
                }
                guard let count = try? Socket.receive(fd, into: &buffer), count > 0 else { break }
                connection.feed(buffer[0..<count])
            }
            socket.withLock { $0.take() }?.close()
        }
    }
}
