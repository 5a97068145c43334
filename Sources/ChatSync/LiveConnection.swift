import ChatStore
import ChatSystem
import ChatWire
import Dispatch

/// The live WebSocket (`GET /v1/live`, RFC 6455 over ``TCPConnection``): events from the server
/// as an `AsyncStream`, one connection per stream.
///
/// The socket is read on a thread of its own (blocking reads never run on the cooperative
/// pool). It pings every ``pingInterval`` and treats a pong missing for ``pongTimeout`` as a dead
/// socket. The stream ends when the connection does, with a ``Event/disconnected(_:)`` saying
/// why; reconnecting (with backoff) and catching up are the caller's job, because a socket does
/// not promise delivery across a drop. Cancelling the consuming task closes the socket.
public struct LiveConnection: Sendable {
    public enum Event: Sendable, Equatable {
        /// The upgrade succeeded: events flow from now on.
        case connected
        case event(LiveEvent)
        /// A frame that is not a valid event (hostile or newer server); it was ignored.
        case ignored(String)
        /// The connection ended; the stream ends after this.
        case disconnected(SyncError)
    }

    public var server: ServerAddress
    private let token: String
    public var pingInterval: Duration
    public var pongTimeout: Duration
    public var connectTimeout: Duration

    public init(server: ServerAddress, token: String, pingInterval: Duration = .seconds(30), pongTimeout: Duration = .seconds(10), connectTimeout: Duration = .seconds(10)) {
        self.server = server
        self.token = token
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.connectTimeout = connectTimeout
    }

    /// Opens one connection; the stream yields its events and ends when it drops.
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        let session = Session(configuration: self, continuation: continuation)
        continuation.onTermination = { _ in session.stop() }
        // A serial queue of its own: the blocking reads never sit on the cooperative pool.
        DispatchQueue(label: "chatdir.live").async { session.run() }
        return stream
    }

    /// One connection's life, on its own thread.
    private final class Session: Sendable {
        /// The socket (once connected) and whether `stop()` was called, shared with `stop()`.
        private let state = Lock<(connection: TCPConnection?, stopped: Bool)>((nil, false))
        private let configuration: LiveConnection
        private let continuation: AsyncStream<Event>.Continuation

        init(configuration: LiveConnection, continuation: AsyncStream<Event>.Continuation) {
            self.configuration = configuration
            self.continuation = continuation
        }

        func stop() {
            let connection = state.withLock { state in
                state.stopped = true
                return state.connection
            }
            connection?.shutdown()
        }

        func run() {
            do {
                try connectAndFollow()
                continuation.yield(.disconnected(.temporary("the server closed the live connection", retryAfter: nil)))
            } catch {
                continuation.yield(.disconnected(error))
            }
            continuation.finish()
        }

        private func connectAndFollow() throws(SyncError) {
            let server = configuration.server
            let tcp = try TCPConnection.connect(host: server.host, port: server.port, timeout: configuration.connectTimeout)
            let stoppedEarly = state.withLock { state in
                state.connection = tcp
                return state.stopped
            }
            if stoppedEarly { throw .temporary("stopped", retryAfter: nil) }

            let handshake = WebSocketClientHandshake(
                host: server.hostHeader, target: HTTPRequestTarget("/v1/live"),
                headers: ["Authorization": "Bearer \(configuration.token)"]
            )
            let request: [UInt8]
            do { request = try handshake.request.serialized() } catch {
                throw .rejected(status: 400, message: "the live upgrade was not sent (refused by this client, not the server): \(error)")
            }
            try tcp.send(request)
            var parser = HTTPResponseHeadParser()
            var socket = WebSocketConnection(role: .client)
            let deadline = ContinuousClock.now + configuration.connectTimeout
            while true {
                let left = deadline - ContinuousClock.now
                guard left > .zero else { throw .temporary("no answer to the WebSocket upgrade", retryAfter: nil) }
                switch try tcp.receive(timeout: left) {
                case .closed: throw .temporary("the server closed the connection during the upgrade", retryAfter: nil)
                case .timedOut: continue
                case let .bytes(bytes): parser.feed(bytes)
                }
                let parsed: (head: HTTPResponseHead, remainder: [UInt8])?
                do { parsed = try parser.parse() } catch { throw .badResponse("the upgrade answer: \(error.message)") }
                guard let (head, remainder) = parsed else { continue }
                if head.status.code == 401 { throw .unauthorized("the live connection was refused") }
                if head.status.code == 429 || head.status.code >= 500 {
                    throw .temporary("the live connection was refused with \(head.status.code)", retryAfter: Backoff.retryAfter(header: head.headers["Retry-After"]))
                }
                do { try handshake.validate(head) } catch { throw .badResponse("the upgrade answer: \(error.message)") }
                socket.feed(remainder)
                break
            }
            continuation.yield(.connected)
            try follow(tcp, &socket)
        }

        private func follow(_ tcp: TCPConnection, _ socket: inout WebSocketConnection) throws(SyncError) {
            var nextPing = ContinuousClock.now + configuration.pingInterval
            var pongDeadline: ContinuousClock.Instant?
            while true {
                while true {
                    let event: WebSocketEvent?
                    do { event = try socket.nextEvent() } catch {
                        try? tcp.send(socket.close(code: error.closeCode, reason: ""))
                        throw .badResponse("the live connection broke RFC 6455: \(error.message)")
                    }
                    guard let event else { break }
                    switch event {
                    case let .text(text):
                        do {
                            if let decoded = try WireDecoder.liveEvent(text) { continuation.yield(.event(decoded)) }
                        } catch {
                            continuation.yield(.ignored(error.description))
                        }
                    case .binary:
                        continuation.yield(.ignored("a binary frame"))
                    case let .ping(payload):
                        try tcp.send(socket.pong(payload))
                    case .pong:
                        pongDeadline = nil
                    case let .close(code, reason, reply):
                        if let reply { try? tcp.send(reply) }
                        throw .temporary("the server closed the live connection (\(code.map(String.init) ?? "no code") \(reason))", retryAfter: nil)
                    }
                }
                let now = ContinuousClock.now
                if let pongDeadline, now >= pongDeadline {
                    throw .temporary("no pong within \(configuration.pongTimeout.seconds)s: the connection is dead", retryAfter: nil)
                }
                if now >= nextPing {
                    try tcp.send(socket.ping(Array("chatdir".utf8)))
                    nextPing = now + configuration.pingInterval
                    if pongDeadline == nil { pongDeadline = now + configuration.pongTimeout }
                }
                let wake = min(nextPing, pongDeadline ?? nextPing)
                switch try tcp.receive(timeout: max(wake - ContinuousClock.now, .milliseconds(1))) {
                case .closed:
                    let wasStopped = state.withLock { $0.stopped }
                    throw .temporary(wasStopped ? "stopped" : "the server dropped the live connection", retryAfter: nil)
                case .timedOut: continue
                case let .bytes(bytes): socket.feed(bytes)
                }
            }
        }
    }
}
