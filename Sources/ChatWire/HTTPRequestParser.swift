/// Incremental HTTP/1.1 request parser for the server side of a connection.
///
/// Feed it bytes as they arrive from the socket and pull complete requests out; several
/// pipelined requests may sit in one read, and a request may arrive a byte at a time.
///
/// ```
/// parser.feed(bytesFromSocket)
/// while let request = try parser.nextRequest() { respond(to: request) }
/// ```
///
/// Accepted: origin-form targets (`/path?query`), HTTP/1.0 and HTTP/1.1 (which must carry one
/// `Host`), bodies delimited by `Content-Length` (repeats allowed when they agree). Lines must end
/// in CRLF (see `HTTPHeadReader`). Rejected, with the status to answer:
/// - 400: a malformed request line or header line, a bad or conflicting `Content-Length`;
/// - 413: a declared body longer than `maxBodySize`, refused before any of it is buffered;
/// - 431: a request line plus headers longer than `maxHeadSize`;
/// - 501: any `Transfer-Encoding`, chunked included: our clients always send `Content-Length`;
/// - 505: an HTTP version other than 1.0 and 1.1.
///
/// After an error the parser throws the same error on every call: answer it, then close the
/// connection, since where the next request starts is unknown.
public struct HTTPRequestParser: Sendable {
    /// 16 KiB.
    public static let defaultMaxHeadSize = 16 * 1024
    /// 1 MiB.
    public static let defaultMaxBodySize = 1024 * 1024

    /// The largest body accepted, in bytes.
    public let maxBodySize: Int

    private var queue = ByteQueue()
    private var headReader: HTTPHeadReader
    /// A request whose head is parsed, waiting for its body.
    private var awaitingBody: (request: HTTPRequest, length: Int)?
    private var failure: HTTPParseError?

    /// - Parameters:
    ///   - maxHeadSize: the largest request line plus headers, in bytes, blank line included.
    ///   - maxBodySize: the largest body, in bytes.
    public init(maxHeadSize: Int = defaultMaxHeadSize, maxBodySize: Int = defaultMaxBodySize) {
        headReader = HTTPHeadReader(maxSize: maxHeadSize)
        self.maxBodySize = maxBodySize
    }

    /// Appends bytes read from the connection.
    public mutating func feed(_ bytes: some Sequence<UInt8>) {
        queue.append(contentsOf: bytes)
    }

    /// The next complete request, or nil until more bytes are fed.
    /// - Throws: `HTTPParseError` carrying the status and message to answer with.
    public mutating func nextRequest() throws(HTTPParseError) -> HTTPRequest? {
        if let failure { throw failure }
        do {
            return try parseNext()
        } catch {
            failure = error
            throw error
        }
    }

    /// Removes and returns the bytes fed but not parsed into a request: after a WebSocket
    /// upgrade they are the first frame bytes, to be fed to a `WebSocketConnection`.
    public mutating func takeUnparsedBytes() -> [UInt8] {
        queue.removeAll()
    }

    private mutating func parseNext() throws(HTTPParseError) -> HTTPRequest? {
        if awaitingBody == nil {
            guard let head = try headReader.read(from: &queue) else { return nil }
            let request = try Self.request(from: head)
            awaitingBody = (request, try bodyLength(of: request.headers))
        }
        guard let (request, length) = awaitingBody, queue.count >= length else { return nil }
        awaitingBody = nil
        var complete = request
        complete.body = queue.removeFirst(length)
        return complete
    }

    private static func request(from head: HTTPHead) throws(HTTPParseError) -> HTTPRequest {
        let line = head.startLine
        let parts = line.split(separator: ASCII.space, omittingEmptySubsequences: false)
        guard parts.count == 3,
            !parts[0].isEmpty, parts[0].allSatisfy(ASCII.isTokenCharacter),
            !parts[1].isEmpty, parts[1].allSatisfy(ASCII.isVisible),
            let version = HTTPVersion(parts[2])
        else { throw .malformedRequestLine(line) }
        guard version == .http1_1 || version == .http1_0 else { throw .unsupportedVersion(version) }
        guard parts[1].first == UInt8(ascii: "/") else { throw .targetNotOriginForm(Array(parts[1])) }

        let hostCount = head.headers.values(for: "Host").count
        guard version == .http1_0 || hostCount == 1 else { throw .hostCount(hostCount) }
        return HTTPRequest(
            method: String(decoding: parts[0], as: UTF8.self),
            target: HTTPRequestTarget(String(decoding: parts[1], as: UTF8.self)),
            version: version,
            headers: head.headers
        )
    }

    /// The body length that `Content-Length` declares (0 without one), checked against the limit.
    private func bodyLength(of headers: HTTPHeaders) throws(HTTPParseError) -> Int {
        if let transferEncoding = headers.values(for: "Transfer-Encoding").first {
            throw .transferEncodingNotSupported(transferEncoding)
        }
        // `Content-Length: 5, 5` and repeated fields are allowed when all values agree (RFC 9110 §8.6).
        let values = headers.values(for: "Content-Length").flatMap {
            $0.split(separator: ",", omittingEmptySubsequences: false)
        }
        .map { $0.trimmingSpacesAndTabs() }
        guard let declared = values.first else { return 0 }
        for value in values where value.isEmpty || !value.utf8.allSatisfy({ ASCII.digitValue($0) != nil }) {
            throw .invalidContentLength(value)
        }
        guard values.allSatisfy({ $0 == declared }) else { throw .conflictingContentLength(values) }

        var length = 0
        for digit in declared.utf8.compactMap(ASCII.digitValue) {
            length = length * 10 + digit
            guard length <= maxBodySize else { throw .bodyTooLarge(declared: declared, limit: maxBodySize) }
        }
        return length
    }
}
