import ChatDomain
import ChatProtocol
import ChatStore
import ChatSystem
import ChatWire
import Dispatch

/// The live WebSocket (`GET /v1/live`, RFC 6455 over a ``ByteStream``): events from the server
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
    /// Where the stream comes from (TCP unless a test scripts one).
    var connector: Connector = .network(caFile: nil)

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
        private let state = Lock<(connection: (any ByteStream)?, stopped: Bool)>((nil, false))
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
                continuation.yield(.disconnected(.transport(TransportError(.closed, "the server closed the live connection"))))
            } catch {
                continuation.yield(.disconnected(error))
            }
            continuation.finish()
        }

        /// Sends on the live stream within the usual 10 s.
        private func send(_ bytes: [UInt8], on stream: any ByteStream) throws(SyncError) {
            do { try stream.write(bytes, timeout: .seconds(10)) } catch { throw .transport(error) }
        }

        private func connectAndFollow() throws(SyncError) {
            let server = configuration.server
            let deadline = ContinuousClock.now + configuration.connectTimeout
            let tcp: any ByteStream
            do { tcp = try configuration.connector.open(server, deadline) } catch { throw .opening(error) }
            let stoppedEarly = state.withLock { state in
                state.connection = tcp
                return state.stopped
            }
            if stoppedEarly { throw .temporary("stopped", retryAfter: nil) }

            let handshake = WebSocketClientHandshake(
                host: server.hostHeader, target: HTTPRequestTarget(Endpoint.live.path),
                headers: ["Authorization": "Bearer \(configuration.token)"]
            )
            let request: [UInt8]
            do { request = try handshake.request.serialized() } catch {
                throw .rejected(status: 400, message: "the live upgrade was not sent (refused by this client, not the server): \(error)")
            }
            try send(request, on: tcp)
            // The upgrade's answer has the connect timeout, counted again from the request.
            let (head, remainder) = try ResponseHeadReader.read(from: tcp, until: .now + configuration.connectTimeout, for: .upgrade)
            switch ResponseVerdict(status: Int(head.status.code), headers: head.headers, success: 101...101) {
            case .unauthorized:
                throw .unauthorized("401: the live connection was refused")
            case .rejected where head.status.code == 403:
                // Forbidden to this token: as permanent as a 401, so the worker stops (exit 77)
                // instead of reconnecting for ever.
                throw .unauthorized("403: the live connection was forbidden")
            case let .temporary(retryAfter):
                throw .temporary("the live connection was refused with \(head.status.code)", retryAfter: retryAfter)
            case .success, .rejected, .unexpected:
                do { try handshake.validate(head) } catch { throw .contract("the upgrade answer: \(error.message)") }
            }
            var socket = WebSocketConnection(role: .client)
            socket.feed(remainder)
            continuation.yield(.connected)
            try follow(tcp, &socket)
        }

        private func follow(_ tcp: any ByteStream, _ socket: inout WebSocketConnection) throws(SyncError) {
            var nextPing = ContinuousClock.now + configuration.pingInterval
            var pongDeadline: ContinuousClock.Instant?
            while true {
                while true {
                    let event: WebSocketEvent?
                    do { event = try socket.nextEvent() } catch {
                        try? send(socket.close(code: error.closeCode, reason: ""), on: tcp)
                        throw .contract("the live connection broke RFC 6455: \(error.message)")
                    }
                    guard let event else { break }
                    switch event {
                    case let .text(text):
                        do {
                            if let decoded = try SyncError.decoding(WireDecoder.liveEvent, text) { continuation.yield(.event(decoded)) }
                        } catch {
                            continuation.yield(.ignored(error.description))
                        }
                    case .binary:
                        continuation.yield(.ignored("a binary frame"))
                    case let .ping(payload):
                        try send(socket.pong(payload), on: tcp)
                    case .pong:
                        pongDeadline = nil
                    case let .close(code, reason, reply):
                        if let reply { try? send(reply, on: tcp) }
                        throw .transport(TransportError(.closed, "the server closed the live connection (\(code.map(String.init) ?? "no code") \(reason))"))
                    }
                }
                let now = ContinuousClock.now
                if let pongDeadline, now >= pongDeadline {
                    throw .transport(TransportError(.timedOut, "no pong within \(configuration.pongTimeout.seconds)s: the connection is dead"))
                }
                if now >= nextPing {
                    try send(socket.ping(Array("chatdir".utf8)), on: tcp)
                    nextPing = now + configuration.pingInterval
                    if pongDeadline == nil { pongDeadline = now + configuration.pongTimeout }
                }
                let wake = min(nextPing, pongDeadline ?? nextPing)
                let read: ByteStreamRead
                do { read = try tcp.read(until: wake) } catch { throw .transport(error) }
                switch read {
                case .closed:
                    let wasStopped = state.withLock { $0.stopped }
                    if wasStopped { throw .temporary("stopped", retryAfter: nil) }
                    throw .transport(TransportError(.closed, "the server dropped the live connection"))
                case .timedOut: continue
                case let .bytes(bytes): socket.feed(bytes)
                }
            }
        }
    }
}
