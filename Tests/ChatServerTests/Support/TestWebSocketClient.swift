import ChatDomain
import ChatServer
import ChatSystem
import ChatWire

/// The server refused the upgrade: its status and body.
struct UpgradeRefused: Error, CustomStringConvertible {
    var status: Int
    var body: String
    var description: String { "upgrade refused with \(status): \(body)" }
}

/// A WebSocket client over a raw socket, built on ChatWire's client handshake and connection:
/// what a test uses to watch `/v1/live`, and to send frames a well-behaved client never would.
final class TestWebSocketClient {
    private let socket: FileDescriptor
    var fd: Int32 { socket.rawValue }
    private var connection = WebSocketConnection(role: .client)
    private var closed = false

    /// Connects and completes the opening handshake.
    /// - Throws: ``UpgradeRefused`` when the server answers anything but a valid 101.
    init(
        port: Int, token: String?, key: String = WebSocketHandshake.makeKey(),
        maxMessageSize: Int = WebSocketConnection.defaultMaxMessageSize
    ) throws {
        socket = try Socket.connect(host: "127.0.0.1", port: port)
        var headers: HTTPHeaders = [:]
        if let token { headers.add(name: "Authorization", value: "Bearer \(token)") }
        let handshake = WebSocketClientHandshake(
            host: "127.0.0.1:\(port)", target: HTTPRequestTarget("/v1/live"), headers: headers, key: key)
        try Socket.sendAll(fd, handshake.request.serialized())
        var parser = HTTPResponseHeadParser()
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = Clock.monotonicMilliseconds() + 10_000
        while true {
            let now = Clock.monotonicMilliseconds()
            // The descriptor closes once, with this object, even when init throws from here on.
            guard now < deadline else { throw ResponseTimedOut() }
            _ = try Poll.wait([fd], timeoutMilliseconds: deadline - now)
            let count = try Socket.receive(fd, into: &buffer)
            guard count > 0 else { throw ConnectionClosed() }
            parser.feed(buffer[0..<count])
            guard let (head, remainder) = try parser.parse() else { continue }
            guard head.status.code == 101 else {
                throw UpgradeRefused(status: head.status.code, body: String(decoding: remainder, as: UTF8.self))
            }
            try handshake.validate(head)
            connection = WebSocketConnection(role: .client, maxMessageSize: maxMessageSize)
            connection.feed(remainder)
            self.acceptHeader = head.headers["Sec-WebSocket-Accept"]
            return
        }
    }

    /// The `Sec-WebSocket-Accept` the server sent.
    private(set) var acceptHeader: String?

    /// Writes raw bytes: a frame built by hand, masked or not.
    func sendRaw(_ bytes: [UInt8]) throws {
        try Socket.sendAll(fd, bytes)
    }

    /// Reads exactly `count` raw bytes from the socket (frames as they are on the wire), bypassing
    /// the codec; nil if they do not arrive within `timeoutMilliseconds`.
    func readRaw(_ count: Int, timeoutMilliseconds: Int = 10_000) throws -> [UInt8]? {
        let deadline = Clock.monotonicMilliseconds() + timeoutMilliseconds
        var bytes: [UInt8] = []
        while bytes.count < count {
            let now = Clock.monotonicMilliseconds()
            guard now < deadline else { return nil }
            guard try Poll.wait([fd], timeoutMilliseconds: deadline - now)[0].readable else { continue }
            var chunk = [UInt8](repeating: 0, count: count - bytes.count)
            let received = try Socket.receive(fd, into: &chunk)
            guard received > 0 else { return nil }
            bytes += chunk[0..<received]
        }
        return bytes
    }

    func ping(_ payload: [UInt8]) throws {
        try Socket.sendAll(fd, connection.ping(payload))
    }

    /// The next event, or nil when nothing arrives within `timeoutMilliseconds` or the socket ended.
    func nextEvent(timeoutMilliseconds: Int = 10_000) throws -> WebSocketEvent? {
        let deadline = Clock.monotonicMilliseconds() + timeoutMilliseconds
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let event = try connection.nextEvent() { return event }
            guard !closed else { return nil }
            let now = Clock.monotonicMilliseconds()
            guard now < deadline else { return nil }
            let ready = try Poll.wait([fd], timeoutMilliseconds: deadline - now)
            guard ready[0].readable || ready[0].hungUp else { continue }
            let count: Int
            do { count = try Socket.receive(fd, into: &buffer) } catch {
                closed = true
                return nil
            }
            guard count > 0 else {
                closed = true
                return nil
            }
            connection.feed(buffer[0..<count])
        }
    }

    /// The next text message parsed as JSON (pings and pongs skipped); nil on timeout or close.
    func nextJSON(timeoutMilliseconds: Int = 10_000) throws -> JSONValue? {
        while let event = try nextEvent(timeoutMilliseconds: timeoutMilliseconds) {
            switch event {
            case .text(let text): return try JSONParser.parse(text)
            case .close: return nil
            default: continue
            }
        }
        return nil
    }

    /// The close code the server sends next (skipping other events); nil if the socket just ends.
    func closeCode(timeoutMilliseconds: Int = 10_000) throws -> UInt16? {
        while let event = try nextEvent(timeoutMilliseconds: timeoutMilliseconds) {
            if case .close(let code, _, let reply) = event {
                if let reply { try? Socket.sendAll(fd, reply) }
                return code
            }
        }
        return nil
    }
}
