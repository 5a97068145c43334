/// Incremental parser for one response head: the client side of a WebSocket handshake.
///
/// The bytes after the head's blank line belong to the next protocol (a server may send its
/// first WebSocket frame in the same packet as its 101), so they come back as `remainder`
/// for the `WebSocketConnection`. Line rules are those of `HTTPHeadReader` (strict CRLF).
/// Bodies are not read: a non-101 answer ends the handshake anyway.
public struct HTTPResponseHeadParser: Sendable {
    private var queue = ByteQueue()
    private var headReader: HTTPHeadReader

    /// - Parameter maxHeadSize: the largest status line plus headers, in bytes.
    public init(maxHeadSize: Int = HTTPRequestParser.defaultMaxHeadSize) {
        headReader = HTTPHeadReader(maxSize: maxHeadSize)
    }

    /// Appends bytes read from the connection.
    public mutating func feed(_ bytes: some Sequence<UInt8>) {
        queue.append(contentsOf: bytes)
    }

    /// The head and every byte fed after it, or nil until the blank line has arrived.
    /// - Throws: `HTTPParseError` when the status line or a header line is malformed or the
    ///   head is too large; its `message` says which.
    public mutating func parse() throws(HTTPParseError) -> (head: HTTPResponseHead, remainder: [UInt8])? {
        guard let head = try headReader.read(from: &queue) else { return nil }
        return (try Self.responseHead(from: head), queue.removeAll())
    }

    /// Reads `HTTP/1.1 101 Switching Protocols`; the reason phrase may be empty or missing.
    private static func responseHead(from head: HTTPHead) throws(HTTPParseError) -> HTTPResponseHead {
        let line = head.startLine
        let digits = line.dropFirst(9).prefix(3).compactMap(ASCII.digitValue)
        guard line.count >= 12, line[8] == ASCII.space, let version = HTTPVersion(line[0..<8]),
            digits.count == 3, digits[0] >= 1,
            line.count == 12 || line[12] == ASCII.space,
            line.dropFirst(13).allSatisfy(ASCII.isFieldContent)
        else { throw .malformedStatusLine(line) }
        let code = digits.reduce(0) { $0 * 10 + $1 }
        let reason = String(decoding: line.dropFirst(13), as: UTF8.self)
        return HTTPResponseHead(
            version: version, status: HTTPStatus(code: code, reasonPhrase: reason), headers: head.headers)
    }
}
