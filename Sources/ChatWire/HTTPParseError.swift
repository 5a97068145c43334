/// Why bytes received are not an acceptable HTTP message, and the status a server answers with.
///
/// The request parser throws it; the server writes `status` and `message` back and closes the
/// connection, because the stream cannot be resynchronised after a bad head. The response head
/// parser throws it too; a client reports `message` and can ignore `status`.
public struct HTTPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status to answer with: 400, 413, 431, 501 or 505.
    public let status: HTTPStatus
    /// One line saying what is wrong, quoting the bad value, and what to do instead.
    public let message: String

    public var description: String { "\(status): \(message)" }

    init(_ status: HTTPStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    static func headTooLarge(limit: Int) -> Self {
        Self(
            .requestHeaderFieldsTooLarge,
            "the head (start line and headers) exceeds \(limit) bytes; send fewer or shorter headers")
    }

    static func bareLineFeed(line: Int) -> Self {
        Self(.badRequest, "line \(line) of the head ends in LF without CR; end every line with CRLF")
    }

    static func malformedRequestLine(_ line: [UInt8]) -> Self {
        Self(.badRequest, "request line \(ASCII.quoted(line)) is not \"METHOD /path HTTP/1.1\" with single spaces")
    }

    static func targetNotOriginForm(_ target: [UInt8]) -> Self {
        Self(
            .badRequest,
            "request target \(ASCII.quoted(target)) does not start with \"/\"; send the path and query only")
    }

    static func unsupportedVersion(_ version: HTTPVersion) -> Self {
        Self(.httpVersionNotSupported, "\(version) is not supported; use HTTP/1.1 or HTTP/1.0")
    }

    static func malformedStatusLine(_ line: [UInt8]) -> Self {
        Self(.badRequest, "status line \(ASCII.quoted(line)) is not \"HTTP/1.1 <3-digit code> <reason>\"")
    }

    static func foldedHeader(line: Int, _ text: [UInt8]) -> Self {
        Self(
            .badRequest,
            "line \(line) \(ASCII.quoted(text)) starts with whitespace (obsolete line folding); put each header on one line"
        )
    }

    static func headerWithoutColon(line: Int, _ text: [UInt8]) -> Self {
        Self(.badRequest, "line \(line) \(ASCII.quoted(text)) has no colon; write headers as \"Name: value\"")
    }

    static func whitespaceBeforeColon(line: Int, _ text: [UInt8]) -> Self {
        Self(
            .badRequest,
            "line \(line) \(ASCII.quoted(text)) has whitespace between the header name and the colon; remove it")
    }

    static func invalidHeaderName(line: Int, _ text: [UInt8]) -> Self {
        Self(
            .badRequest,
            "line \(line) \(ASCII.quoted(text)) has a header name that is empty or not a token; use letters, digits and !#$%&'*+-.^_`|~"
        )
    }

    static func invalidHeaderValue(line: Int, _ text: [UInt8]) -> Self {
        Self(.badRequest, "line \(line) \(ASCII.quoted(text)) has a control character in the header value; remove it")
    }

    static func transferEncodingNotSupported(_ value: String) -> Self {
        Self(
            .notImplemented,
            "Transfer-Encoding \(ASCII.quoted(value.utf8)) is not supported; send the body with Content-Length")
    }

    static func invalidContentLength(_ value: String) -> Self {
        Self(.badRequest, "Content-Length \(ASCII.quoted(value.utf8)) is not a decimal number of bytes")
    }

    static func conflictingContentLength(_ values: [String]) -> Self {
        Self(.badRequest, "Content-Length has different values \(ASCII.quoted(values)); send it once")
    }

    static func bodyTooLarge(declared: String, limit: Int) -> Self {
        Self(.contentTooLarge, "body of \(declared) bytes exceeds the limit of \(limit) bytes; send a smaller body")
    }

    static func hostCount(_ count: Int) -> Self {
        Self(.badRequest, "an HTTP/1.1 request needs exactly one Host header, this one has \(count)")
    }
}
