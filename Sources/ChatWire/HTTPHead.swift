/// The start line and header fields of one HTTP/1.1 message, before any body.
struct HTTPHead: Sendable {
    /// The request line or status line, without its CRLF.
    var startLine: [UInt8]
    var headers: HTTPHeaders
}

extension HTTPHead {
    /// The start line and headers as bytes, each line ending in CRLF, then the blank line.
    /// - Throws: ``HTTPHeaderError`` when the start line, a name or a value holds CR, LF or NUL.
    static func serialize(startLine: String, headers: HTTPHeaders) throws(HTTPHeaderError) -> [UInt8] {
        guard !breaksLine(startLine) else { throw .controlInStartLine() }
        var text = startLine + "\r\n"
        for header in headers {
            guard !breaksLine(header.name) else { throw .controlInName(header.name) }
            guard !breaksLine(header.value) else { throw .controlInValue(name: header.name) }
            text += "\(header.name): \(header.value)\r\n"
        }
        return Array((text + "\r\n").utf8)
    }

    /// Whether `text` holds CR, LF or NUL, the bytes that end or cut a line of the head.
    private static func breaksLine(_ text: String) -> Bool {
        text.utf8.contains { $0 == ASCII.cr || $0 == ASCII.lf || $0 == 0 }
    }
}
