import ChatDomain
import ChatSystem
import ChatTLS
import ChatWire

/// One client connection on its own thread: HTTP/1.1 requests with keep-alive and pipelining
/// until the client closes, a limit is hit, or the connection is upgraded to a live socket.
///
/// Every wait has a deadline (``ServerConfiguration``): a request must arrive whole within the
/// request timeout once its first byte came, an idle keep-alive connection is closed, a live
/// socket must be heard from. Sends block at most the send timeout. So a slow or stuck client
/// holds one thread for a bounded time and nobody else notices.
struct Connection: Sendable {
    /// The socket's number; the server's accept loop owns its ``FileDescriptor`` (see ``ChatServer``).
    let fd: Int32
    let configuration: ServerConfiguration
    let api: API
    let hub: LiveHub
    /// This connection's number if it becomes a live socket (for fault decisions).
    let liveNumber: @Sendable () -> UInt64
    /// Called once, when the first bytes arrive: from then on the server will not drop this
    /// connection to make room for another (see ``SilentConnections``).
    var heard: @Sendable () -> Void = {}
    /// The server's certificate and key when it serves HTTPS and WSS (`serve --tls-cert`).
    var tls: TLS.Context?
    /// The most bytes read and thrown away after refusing a request, before closing anyway.
    static let maxDrainBytes = 64 << 20

    private static let readSize = 64 * 1024

    func run() {
        guard let io = openIO() else { return }
        serve(io)
        io.tls?.close()
    }

    /// The plain socket, or TLS after a handshake finished within the request timeout on this
    /// connection's own thread (a client that never sends a ClientHello holds only this thread,
    /// and only that long). Nil when the handshake failed: the connection just closes.
    private func openIO() -> ConnectionIO? {
        let recordTimeout = configuration.requestTimeoutMilliseconds
        guard let tls else {
            return ConnectionIO(
                fd: fd, tls: nil, sendTimeoutMilliseconds: configuration.sendTimeoutMilliseconds,
                recordTimeoutMilliseconds: recordTimeout)
        }
        do {
            try Socket.setNonBlocking(fd)
            let session = try TLS.Session(context: tls, fd: fd, host: nil, peer: "client")
            try session.handshake(until: .now + .milliseconds(configuration.requestTimeoutMilliseconds))
            return ConnectionIO(
                fd: fd, tls: session, sendTimeoutMilliseconds: configuration.sendTimeoutMilliseconds,
                recordTimeoutMilliseconds: recordTimeout)
        } catch {
            return nil
        }
    }

    private func serve(_ io: ConnectionIO) {
        var parser = HTTPRequestParser(maxHeadSize: configuration.maxHeadSize, maxBodySize: configuration.maxBodySize)
        var buffer = [UInt8](repeating: 0, count: Self.readSize)
        var requestStarted: Int?
        var lastActivity = Clock.monotonicMilliseconds()
        // Until a first request arrives, the connection gets the request timeout, not the
        // keep-alive idle timeout: a socket that never speaks must not hold a slot for a minute.
        var servedAny = false
        do throws(SystemError) {
            while true {
                // Answer every complete request already buffered (pipelining).
                while true {
                    let request: HTTPRequest
                    do {
                        guard let next = try parser.nextRequest() else { break }
                        request = next
                    } catch {
                        try send(
                            APIError(status: error.status, message: error.message, headers: ["Connection": "close"])
                                .response, on: io)
                        drainBeforeClosing(io)
                        return
                    }
                    requestStarted = nil
                    servedAny = true
                    switch api.handle(request) {
                    case .response(let response, let close):
                        var response = response
                        let closing = close || !request.keepAlive
                        if closing { response.headers.add(name: "Connection", value: "close") }
                        try send(response, on: io)
                        if closing { return }
                    case .drop:
                        return
                    case .upgrade(let response, let user):
                        try send(response, on: io)
                        runLive(user: user, firstBytes: parser.takeUnparsedBytes(), io: io)
                        return
                    }
                    lastActivity = Clock.monotonicMilliseconds()
                }
                let now = Clock.monotonicMilliseconds()
                let waitLimit =
                    servedAny ? configuration.idleTimeoutMilliseconds : configuration.requestTimeoutMilliseconds
                let deadline =
                    requestStarted.map { $0 + configuration.requestTimeoutMilliseconds } ?? lastActivity + waitLimit
                guard now < deadline else {
                    if requestStarted != nil {
                        try send(
                            APIError(
                                status: HTTPStatus(code: 408, reasonPhrase: "Request Timeout"),
                                message:
                                    "the request did not arrive whole within \(configuration.requestTimeoutMilliseconds) ms; send it at once",
                                headers: ["Connection": "close"]
                            ).response, on: io)
                    }
                    return
                }
                let ready = try io.wait(timeoutMilliseconds: deadline - now)
                guard ready[0].readable || ready[0].hungUp else { continue }
                let count = try io.receive(into: &buffer)
                guard count > 0 else { return }
                parser.feed(buffer[0..<count])
                if !servedAny, requestStarted == nil { heard() }
                if requestStarted == nil { requestStarted = Clock.monotonicMilliseconds() }
            }
        } catch {
            // The peer went away or stopped reading: nothing more to say to it.
        }
    }

    /// After refusing a request (413 with its body still coming, 431, 400): stop sending, then
    /// read and discard what the client still sends, until it closes, the request timeout
    /// passes or ``maxDrainBytes`` were read. Closing with unread bytes would send a reset, and
    /// a client that is still writing its body would see that instead of the answer, and retry.
    private func drainBeforeClosing(_ io: ConnectionIO) {
        // Over TLS the refusal is whole once sent; half-closing under a TLS session is not a thing.
        if io.isTLS { return }
        Socket.shutdownWrite(fd)
        var buffer = [UInt8](repeating: 0, count: Self.readSize)
        var drained = 0
        let deadline = Clock.monotonicMilliseconds() + configuration.requestTimeoutMilliseconds
        while drained < Self.maxDrainBytes {
            let now = Clock.monotonicMilliseconds()
            guard now < deadline, let ready = try? Poll.wait([fd], timeoutMilliseconds: deadline - now),
                ready[0].readable || ready[0].hungUp,
                let count = try? Socket.receive(fd, into: &buffer), count > 0
            else { return }
            drained += count
        }
    }

    private func send(_ response: HTTPResponse, on io: ConnectionIO) throws(SystemError) {
        let bytes: [UInt8]
        do { bytes = try response.serialized() } catch {
            // A header of ours with a line break: a bare 500 rather than an injected header.
            bytes = Array("HTTP/1.1 500 Internal Server Error\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)
        }
        try io.sendAll(bytes)
    }

    // MARK: Live

    /// Serves `/v1/live` after the 101: queued events out (with the live faults), pings answered,
    /// the client's close echoed, protocol errors closed with their code.
    private func runLive(user: UserID, firstBytes: [UInt8], io: ConnectionIO) {
        guard let wakeUp = try? WakePipe() else { return }
        let session = LiveSession(user: user, number: liveNumber(), wakeUp: wakeUp)
        defer { session.close() }
        hub.register(session)
        defer { hub.unregister(session) }

        let faults = api.faults
        var socket = WebSocketConnection(role: .server, maxMessageSize: configuration.maxLiveMessageSize)
        socket.feed(firstBytes)
        var buffer = [UInt8](repeating: 0, count: Self.readSize)
        let opened = Clock.monotonicMilliseconds()
        var lastHeard = opened
        var eventIndex: UInt64 = 0
        var heldBack: String?

        do throws(SystemError) {
            while true {
                var events: [WebSocketEvent] = []
                var failure: WebSocketProtocolError?
                do throws(WebSocketProtocolError) {
                    while let event = try socket.nextEvent() { events.append(event) }
                } catch {
                    failure = error
                }
                for event in events {
                    switch event {
                    case .ping(let payload):
                        try io.sendAll(socket.pong(payload))
                    case .close(_, _, let reply):
                        if let reply { try io.sendAll(reply) }
                        return
                    case .text, .binary, .pong:
                        break // wire v1 gives the client nothing to say here
                    }
                }
                if let failure {
                    try closeLive(&socket, io, code: failure.closeCode, reason: failure.message)
                    return
                }

                let now = Clock.monotonicMilliseconds()
                var deadline = lastHeard + configuration.liveIdleTimeoutMilliseconds
                if let every = faults.liveCloseMilliseconds { deadline = min(deadline, opened + every) }
                guard now < deadline else {
                    let reason =
                        faults.liveCloseMilliseconds.map { opened + $0 <= now } == true
                        ? "closed by the live-close fault; reconnect and catch up"
                        : "nothing heard for \(configuration.liveIdleTimeoutMilliseconds) ms; ping every 30 s"
                    try closeLive(&socket, io, code: WebSocketCloseCode.goingAway, reason: reason)
                    return
                }
                let ready = try io.wait([wakeUp.readEnd], timeoutMilliseconds: deadline - now)
                if ready[1].readable {
                    let (events, overflowed) = session.takeAll()
                    if overflowed {
                        try closeLive(
                            &socket, io, code: WebSocketCloseCode.policyViolation,
                            reason: "too many events waiting; read faster, then reconnect and catch up")
                        return
                    }
                    for event in events {
                        let index = session.number << 32 | eventIndex
                        eventIndex += 1
                        if faults.strikes(.liveDrop, probability: faults.liveDrop, index: index) { continue }
                        if heldBack == nil, faults.strikes(.liveReorder, probability: faults.liveReorder, index: index)
                        {
                            heldBack = event
                            continue
                        }
                        var frames = socket.text(event)
                        if faults.strikes(.liveDuplicate, probability: faults.liveDuplicate, index: index) {
                            frames += socket.text(event)
                        }
                        if let held = heldBack {
                            frames += socket.text(held)
                            heldBack = nil
                        }
                        try io.sendAll(frames)
                    }
                }
                if ready[0].readable || ready[0].hungUp {
                    let count = try io.receive(into: &buffer)
                    guard count > 0 else { return }
                    socket.feed(buffer[0..<count])
                    lastHeard = Clock.monotonicMilliseconds()
                }
            }
        } catch {
            // The peer went away: unregistering is all that is left.
        }
    }

    /// Sends a close frame and waits up to a second for the peer's (RFC 6455 §7.1.1).
    private func closeLive(_ socket: inout WebSocketConnection, _ io: ConnectionIO, code: UInt16, reason: String)
        throws(SystemError)
    {
        try io.sendAll(socket.close(code: code, reason: reason))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Clock.monotonicMilliseconds() + 1000
        while !socket.closeReceived {
            let now = Clock.monotonicMilliseconds()
            guard now < deadline, try io.wait(timeoutMilliseconds: deadline - now)[0].readable else { return }
            let count = try io.receive(into: &buffer)
            guard count > 0 else { return }
            socket.feed(buffer[0..<count])
            while (try? socket.nextEvent()) != nil {}
        }
    }
}
