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
    /// What the socket yields: the engine's ``LiveUpdate``, made by the upgrade and the frames.
    public typealias Event = LiveUpdate

    public var server: ServerAddress
    private let token: String
    public var pingInterval: Duration
    public var pongTimeout: Duration
    public var connectTimeout: Duration
    /// Where the stream comes from (TCP unless a test scripts one).
    var connector: Connector = .network(caFile: nil)

    public init(
        server: ServerAddress, token: String, pingInterval: Duration = .seconds(30),
        pongTimeout: Duration = .seconds(10), connectTimeout: Duration = .seconds(10)
    ) {
        self.server = server
        self.token = token
        self.pingInterval = pingInterval
        self.pongTimeout = pongTimeout
        self.connectTimeout = connectTimeout
    }

    /// Opens one connection; each element is every event received since the last one was taken
    /// (at least one, at most `limit` events and about `byteLimit` bytes of message text), so a
    /// consumer that was busy gets a burst in one go and a lone event as soon as it comes. The
    /// stream ends when the connection does. Nothing waits for more events to gather: the reader
    /// thread keeps reading while the consumer works, and what it decoded meanwhile is the next batch.
    ///
    /// What waits for the consumer is bounded (``Inbox/capacity`` events, ``Inbox/byteCapacity``
    /// bytes of message text): past that the reader thread stops reading until the consumer
    /// takes a batch, so a server that sends faster than the store can save fills its own send
    /// buffer, not this process's memory.
    public func batches(limit: Int = 1000, byteLimit: Int = 4 << 20) -> AsyncStream<[Event]> {
        let inbox = Inbox(limit: limit, byteLimit: byteLimit)
        let session = Session(configuration: self, emit: { inbox.push($0) }, finish: { inbox.finish() })
        DispatchQueue(label: "chatdir.live").async { session.run() }
        // Stopped when the consuming task is cancelled, and when the stream is let go of (a
        // consumer that left its loop); a reader thread waiting for room is let go then.
        let reader = BatchReader(inbox: inbox, session: session)
        return AsyncStream(
            unfolding: { await reader.next() },
            onCancel: {
                inbox.stop()
                session.stop()
            })
    }

    /// The consumer's end of ``batches(limit:byteLimit:)``: stops the session when let go of.
    private final class BatchReader: Sendable {
        private let inbox: Inbox
        private let session: Session
        init(inbox: Inbox, session: Session) {
            self.inbox = inbox
            self.session = session
        }
        func next() async -> [Event]? { await inbox.next() }
        deinit {
            inbox.stop()
            session.stop()
        }
    }

    /// The events the reader thread decoded and the consumer has not taken yet, and the
    /// consumer waiting for one, if it is. Bounded: ``push(_:)`` waits for room.
    final class Inbox: Sendable {
        private struct State {
            var queue: [Event] = []
            /// Where the next event is (the queue's consumed front is dropped in chunks).
            var front = 0
            /// Message text bytes of the events past `front`.
            var queuedBytes = 0
            var finished = false
            /// The consumer is gone: nothing more is queued and no push waits.
            var stopped = false
            /// The reader thread waits in ``push(_:)`` for ``room``.
            var pusherWaiting = false
            var waiting: CheckedContinuation<[Event]?, Never>?
        }

        private let state = Lock(State())
        private let room = DispatchSemaphore(value: 0)
        private let limit: Int
        private let byteLimit: Int
        /// Events that may wait for the consumer before the reader thread stops reading.
        let capacity: Int
        /// Bytes of message text that may wait (the first event past it still goes in when the
        /// queue is empty, so one long message never stalls the connection).
        let byteCapacity: Int

        init(limit: Int, byteLimit: Int, capacity: Int = 20_000, byteCapacity: Int = 64 << 20) {
            self.limit = max(1, limit)
            self.byteLimit = byteLimit
            self.capacity = max(1, capacity)
            self.byteCapacity = byteCapacity
        }

        private enum Pushed {
            case queued, dropped, full
            case handedOver(CheckedContinuation<[Event]?, Never>, [Event])
        }

        /// Queues `event` (on the reader thread), handing a batch to a waiting consumer; waits
        /// while the queue is full, and drops the event once the consumer has stopped.
        func push(_ event: Event) {
            let size = Self.textBytes(event)
            while true {
                let pushed = state.withLock { state -> Pushed in
                    if state.stopped { return .dropped }
                    let queued = state.queue.count - state.front
                    if queued > 0, queued >= capacity || state.queuedBytes + size > byteCapacity {
                        state.pusherWaiting = true
                        return .full
                    }
                    state.queue.append(event)
                    state.queuedBytes += size
                    guard let waiting = state.waiting else { return .queued }
                    state.waiting = nil
                    return .handedOver(waiting, take(&state))
                }
                switch pushed {
                case .queued, .dropped: return
                case .full: room.wait()
                case .handedOver(let waiting, let batch):
                    waiting.resume(returning: batch)
                    return
                }
            }
        }

        /// Whether the reader thread is held in ``push(_:)``, waiting for room: what a test of the
        /// bound waits for, instead of a pause in which a push that should wait does not return.
        var isHoldingThePusher: Bool { state.withLock { $0.pusherWaiting } }

        /// The consumer is gone: a waiting push returns, later ones drop their event.
        func stop() {
            state.withLock { state in
                state.stopped = true
                Self.wakePusher(&state, room)
            }
        }

        private static func wakePusher(_ state: inout State, _ room: DispatchSemaphore) {
            guard state.pusherWaiting else { return }
            state.pusherWaiting = false
            room.signal()
        }

        private static func textBytes(_ event: Event) -> Int {
            if case .event(.message(_, let message)) = event { return message.text.utf8.count }
            return 0
        }

        func finish() {
            let waiting = state.withLock { state in
                state.finished = true
                defer { state.waiting = nil }
                return state.waiting
            }
            // Only waiting with an empty queue: every event was handed over before.
            waiting?.resume(returning: nil)
        }

        /// What has queued up (at least one event), waiting for the first if none has; nil at the end.
        func next() async -> [Event]? {
            await withCheckedContinuation { continuation in
                let ready = state.withLock { state -> [Event]?? in
                    if state.front < state.queue.count { return .some(take(&state)) }
                    if state.finished { return .some(nil) }
                    state.waiting = continuation
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        }

        /// Up to the limits from the front of a non-empty queue.
        private func take(_ state: inout State) -> [Event] {
            var end = state.front
            var bytes = 0
            while end < state.queue.count, end - state.front < limit {
                if case .event(.message(_, let message)) = state.queue[end] { bytes += message.text.utf8.count }
                if bytes > byteLimit, end > state.front { break }
                end += 1
            }
            let batch = Array(state.queue[state.front..<end])
            state.queuedBytes -= batch.reduce(0) { $0 + Self.textBytes($1) }
            Self.wakePusher(&state, room)
            if end == state.queue.count {
                state.queue.removeAll(keepingCapacity: true)
                state.front = 0
            } else {
                state.front = end
                if state.front >= 4096 {
                    state.queue.removeFirst(state.front)
                    state.front = 0
                }
            }
            return batch
        }
    }

    /// One connection's life, on its own thread.
    private final class Session: Sendable {
        /// The socket (once connected) and whether `stop()` was called, shared with `stop()`.
        private let state = Lock<(connection: (any ByteStream)?, stopped: Bool)>((nil, false))
        private let configuration: LiveConnection
        /// Where the events go, and the end of them.
        private let emit: @Sendable (Event) -> Void
        private let finish: @Sendable () -> Void

        init(
            configuration: LiveConnection, emit: @escaping @Sendable (Event) -> Void,
            finish: @escaping @Sendable () -> Void
        ) {
            self.configuration = configuration
            self.emit = emit
            self.finish = finish
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
                emit(.disconnected(.transport(TransportError(.closed, "the server closed the live connection"))))
            } catch {
                emit(.disconnected(error))
            }
            finish()
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
                throw .rejected(
                    status: 400,
                    message: "the live upgrade was not sent (refused by this client, not the server): \(error)")
            }
            try send(request, on: tcp)
            // The upgrade's answer has the connect timeout, counted again from the request.
            let (head, remainder) = try ResponseHeadReader.read(
                from: tcp, until: .now + configuration.connectTimeout, for: .upgrade)
            switch ResponseVerdict(status: Int(head.status.code), headers: head.headers, success: 101...101) {
            case .unauthorized:
                throw .unauthorized("401: the live connection was refused")
            case .rejected where head.status.code == 403:
                // Forbidden to this token: as permanent as a 401, so the worker stops (exit 77)
                // instead of reconnecting for ever.
                throw .unauthorized("403: the live connection was forbidden")
            case .temporary(let retryAfter):
                throw .temporary("the live connection was refused with \(head.status.code)", retryAfter: retryAfter)
            case .success, .rejected, .unexpected:
                do { try handshake.validate(head) } catch { throw .contract("the upgrade answer: \(error.message)") }
            }
            var socket = WebSocketConnection(role: .client)
            socket.feed(remainder)
            emit(.connected)
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
                    case .text(let text):
                        do {
                            if let decoded = try SyncError.decoding(WireDecoder.liveEvent, text) {
                                emit(.event(decoded))
                            }
                        } catch {
                            emit(.ignored(error.description))
                        }
                    case .binary:
                        emit(.ignored("a binary frame"))
                    case .ping(let payload):
                        try send(socket.pong(payload), on: tcp)
                    case .pong:
                        pongDeadline = nil
                    case .close(let code, let reason, let reply):
                        if let reply { try? send(reply, on: tcp) }
                        throw .transport(
                            TransportError(
                                .closed,
                                "the server closed the live connection (\(code.map(String.init) ?? "no code") \(reason))"
                            ))
                    }
                }
                let now = ContinuousClock.now
                if let pongDeadline, now >= pongDeadline {
                    throw .transport(
                        TransportError(
                            .timedOut, "no pong within \(configuration.pongTimeout.seconds)s: the connection is dead"))
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
                case .bytes(let bytes): socket.feed(bytes)
                }
            }
        }
    }
}
