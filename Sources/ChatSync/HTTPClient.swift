import ChatDomain
import ChatStore
import ChatSystem
import ChatWire
import Dispatch

/// A small HTTP/1.1 client over a ``ByteStream`` (from its ``Connector``) and the ChatWire
/// codecs, with keep-alive connections reused between requests.
///
/// Written here instead of using URLSession: linking FoundationNetworking doubles the resident
/// size of every `chatdir` command (measured: 11 MB → 23 MB for `chatdir view`, whose goal is
/// 20 MB), and on Linux URLSession's timeouts are whole-second idle timeouts. Each request runs
/// its blocking socket calls on the connection's own serial queue, never on the cooperative pool.
final class HTTPClient: Sendable {
    struct Response: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
    }

    let address: ServerAddress
    let maxBodySize: Int
    let connector: Connector
    /// Whether a `Transfer-Encoding: chunked` answer is read (``ChunkedBodyDecoder``). Wire v1
    /// answers always carry a `Content-Length` and its client refuses anything else; Matrix
    /// homeservers (Synapse) send JSON chunked.
    let acceptsChunked: Bool
    private let idle = Lock<[PooledConnection]>([])
    /// Enough for a one-pass sync's conversations in flight (``SyncEngine/Options/conversationsInFlight``) and a live worker's requests.
    private static let maxIdle = 16

    init(address: ServerAddress, maxBodySize: Int, connector: Connector = .tcp, acceptsChunked: Bool = false) {
        self.address = address
        self.maxBodySize = maxBodySize
        self.connector = connector
        self.acceptsChunked = acceptsChunked
    }

    /// Sends one request and reads the whole answer, within `timeout` from start to end.
    func send(method: String, target: String, headers: HTTPHeaders, body: [UInt8], timeout: Duration)
        async throws(SyncError) -> Response
    {
        let deadline = ContinuousClock.now + timeout
        // A reused connection may have been closed by the server while idle: one retry on a fresh one.
        for attempt in 0..<2 {
            let reused = attempt == 0 ? idle.withLock { $0.popLast() } : nil
            let connection = reused ?? PooledConnection(connector: connector)
            var request = HTTPRequest(method: method, target: HTTPRequestTarget(target), headers: headers, body: body)
            request.headers.add(name: "Host", value: address.hostHeader)
            let bytes: [UInt8]
            do { bytes = try request.serialized() } catch {
                // Written as is, the header would inject lines of its own; it can never succeed.
                throw .rejected(
                    status: 400,
                    message: "\(method) \(target) was not sent (refused by this client, not the server): \(error)")
            }
            let result = await connection.roundTrip(
                bytes, address: address, deadline: deadline, maxBodySize: maxBodySize, acceptsChunked: acceptsChunked)
            switch result {
            case .success((let response, let keepAlive)):
                if keepAlive { idle.withLock { if $0.count < Self.maxIdle { $0.append(connection) } } }
                return response
            case .failure(let error):
                if reused != nil, case .stale = error { continue }
                throw error.syncError
            }
        }
        throw .transport(TransportError(.closed, "\(method) \(target): the connection kept closing"))
    }

    /// Drops idle connections (their sockets close).
    func closeIdle() {
        idle.withLock { $0.removeAll() }
    }
}

/// One keep-alive connection with its own serial queue for blocking I/O.
private final class PooledConnection: Sendable {
    enum Failure: Error {
        /// A reused connection failed before any answer byte: safe to retry on a fresh one.
        case stale(SyncError)
        case failed(SyncError)

        var syncError: SyncError {
            switch self {
            case .stale(let error), .failed(let error): error
            }
        }
    }

    private let queue = DispatchQueue(label: "chatdir.http")
    private let connector: Connector
    // Touched only on `queue`.
    nonisolated(unsafe) private var stream: (any ByteStream)?

    init(connector: Connector) {
        self.connector = connector
    }

    func roundTrip(
        _ request: [UInt8], address: ServerAddress, deadline: ContinuousClock.Instant, maxBodySize: Int,
        acceptsChunked: Bool
    ) async -> Result<(HTTPClient.Response, Bool), Failure> {
        await withCheckedContinuation { continuation in
            queue.async {
                continuation.resume(
                    returning: self.blockingRoundTrip(
                        request, address: address, deadline: deadline, maxBodySize: maxBodySize,
                        acceptsChunked: acceptsChunked))
            }
        }
    }

    private func blockingRoundTrip(
        _ request: [UInt8], address: ServerAddress, deadline: ContinuousClock.Instant, maxBodySize: Int,
        acceptsChunked: Bool
    ) -> Result<(HTTPClient.Response, Bool), Failure> {
        let wasOpen = stream != nil
        var answered = 0
        do throws(SyncError) {
            let connection: any ByteStream
            if let stream {
                connection = stream
            } else {
                do { connection = try connector.open(address, deadline) } catch { throw .opening(error) }
                stream = connection
            }
            do { try connection.write(request, until: deadline) } catch { throw .transport(error) }
            let (head, remainder) = try ResponseHeadReader.read(
                from: connection, until: deadline, for: .request, received: &answered)
            let response =
                if acceptsChunked, head.headers["Transfer-Encoding"] != nil {
                    try readChunkedBody(
                        head: head, already: remainder, connection: connection, deadline: deadline,
                        maxBodySize: maxBodySize)
                } else {
                    try readBody(
                        head: head, already: remainder, connection: connection, deadline: deadline,
                        maxBodySize: maxBodySize)
                }
            let keepAlive = !head.headers.containsToken("close", for: "Connection")
            if !keepAlive { stream = nil }
            return .success((response, keepAlive))
        } catch {
            stream = nil
            // A connection the server closed while it lay idle fails at the write or before the
            // answer's first byte (closed, or reset: over TLS a reset is a failed read), and the
            // request was never taken. Once any byte of an answer came, or the wait for one timed
            // out, the server may have acted on the request (made a room, taken a message): it
            // is not sent again from here.
            if wasOpen, answered == 0, case .transport(let failure) = error, failure.kind != .timedOut {
                return .failure(.stale(error))
            }
            return .failure(.failed(error))
        }
    }

    private func readBody(
        head: HTTPResponseHead, already: [UInt8], connection: any ByteStream, deadline: ContinuousClock.Instant,
        maxBodySize: Int
    ) throws(SyncError) -> HTTPClient.Response {
        if head.headers["Transfer-Encoding"] != nil { throw .contract("chunked answers are not part of the contract") }
        let lengthText = head.headers["Content-Length"] ?? "0"
        guard let length = Int(lengthText), length >= 0 else {
            throw .contract("Content-Length \(lengthText) is not a number")
        }
        guard length <= maxBodySize else {
            throw .contract("an answer of \(length) bytes is over the \(maxBodySize)-byte limit")
        }
        var body = already
        body.reserveCapacity(length)
        var hasRead = false // the first read is always made, as for the head
        while body.count < length {
            guard !hasRead || ContinuousClock.now < deadline else {
                throw .transport(
                    TransportError(.timedOut, "only \(body.count) of the answer's \(length) body bytes came in time"))
            }
            hasRead = true
            let read: ByteStreamRead
            do { read = try connection.read(until: deadline) } catch { throw .transport(error) }
            switch read {
            case .timedOut: continue
            case .closed: throw .transport(TransportError(.closed, "the server closed the connection mid-answer"))
            case .bytes(let bytes): body += bytes
            }
        }
        guard body.count == length else { throw .contract("the answer is longer than its Content-Length") }
        return HTTPClient.Response(status: Int(head.status.code), headers: head.headers, body: body)
    }

    /// The body of a `Transfer-Encoding: chunked` answer, decoded; any other transfer coding is refused.
    private func readChunkedBody(
        head: HTTPResponseHead, already: [UInt8], connection: any ByteStream, deadline: ContinuousClock.Instant,
        maxBodySize: Int
    ) throws(SyncError) -> HTTPClient.Response {
        let coding = head.headers["Transfer-Encoding"] ?? ""
        guard coding.lowercased().filter({ $0 != " " && $0 != "\t" }) == "chunked" else {
            throw .contract("Transfer-Encoding \(coding) is not supported (only chunked)")
        }
        var decoder = ChunkedBodyDecoder(maxBodySize: maxBodySize)
        var pending = already[...]
        var hasRead = false // the first read is always made, as for the head
        while true {
            let after: ArraySlice<UInt8>
            do { after = try decoder.feed(pending) } catch { throw .contract(error.description) }
            if decoder.isComplete {
                guard after.isEmpty else { throw .contract("the answer goes on after its last chunk") }
                return HTTPClient.Response(status: Int(head.status.code), headers: head.headers, body: decoder.body)
            }
            guard !hasRead || ContinuousClock.now < deadline else {
                throw .transport(
                    TransportError(.timedOut, "only \(decoder.body.count) bytes of the chunked answer came in time"))
            }
            hasRead = true
            let read: ByteStreamRead
            do { read = try connection.read(until: deadline) } catch { throw .transport(error) }
            switch read {
            case .timedOut: pending = []
            case .closed: throw .transport(TransportError(.closed, "the server closed the connection mid-answer"))
            case .bytes(let bytes): pending = bytes[...]
            }
        }
    }
}

extension SyncError {
    /// A failure of ``HTTPClient/send(method:target:headers:body:timeout:)`` as a client reports
    /// it: a temporary one names the request; a transport one names the server when nothing
    /// answered there at all, else the request. Any other is itself.
    func locating(request: String, on server: ServerAddress) -> SyncError {
        switch self {
        case .temporary(let reason, let retryAfter): .temporary("\(request): \(reason)", retryAfter: retryAfter)
        case .transport(let failure) where failure.kind == .unreachable:
            .transport(failure.within(server.description))
        case .transport(let failure): .transport(failure.within(request))
        default: self
        }
    }
}
