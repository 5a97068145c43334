/// Finds a complete message head at the front of received bytes and splits it into lines.
///
/// Lines must end in CRLF: a bare LF is rejected rather than tolerated, because parsers that
/// disagree about line ends are how request smuggling starts, and every client we talk to
/// (URLSession, curl, Python) sends CRLF. Empty lines before the start line are skipped
/// (RFC 9112 §2.2), which forgives a stray CRLF after a body. Header lines follow RFC 9112 §5:
/// no obsolete line folding, no whitespace before the colon, no control characters in values.
struct HTTPHeadReader: Sendable {
    /// The largest head accepted, counting every byte up to and including the blank line.
    let maxSize: Int

    /// How many bytes at the front of the queue were already searched for the end of the head,
    /// so that feeding a byte at a time stays linear.
    private var scanned = 0

    init(maxSize: Int) {
        self.maxSize = maxSize
    }

    /// Removes a complete head from the front of `queue` and returns it, or returns nil and
    /// consumes nothing but skipped empty lines when the head is not complete yet.
    /// - Throws: `HTTPParseError` with 431 past `maxSize`, 400 for a bad line end or header line.
    mutating func read(from queue: inout ByteQueue) throws(HTTPParseError) -> HTTPHead? {
        if scanned == 0 {
            skipEmptyLines(in: &queue)
            // A lone CR may begin one more empty line; scanning it now would make it line 1.
            if queue.bytes.elementsEqual([ASCII.cr]) { return nil }
        }
        let bytes = queue.bytes
        let base = bytes.startIndex
        var offset = scanned
        // Never look past the limit: what lies beyond it (a bare LF, say) must not change the
        // answer from 431 to 400 depending on how the bytes were split into reads.
        while offset < min(bytes.count, maxSize) {
            defer { offset += 1 }
            guard bytes[base + offset] == ASCII.lf else { continue }
            guard offset > 0, bytes[base + offset - 1] == ASCII.cr else {
                throw .bareLineFeed(line: bytes[base..<base + offset].count { $0 == ASCII.lf } + 1)
            }
            // A CRLF right after another CRLF ends the head.
            guard offset >= 3, bytes[base + offset - 2] == ASCII.lf else { continue }
            scanned = 0
            return try Self.split(queue.removeFirst(offset + 1))
        }
        scanned = offset
        guard bytes.count <= maxSize else { throw .headTooLarge(limit: maxSize) }
        return nil
    }

    private func skipEmptyLines(in queue: inout ByteQueue) {
        while queue.bytes.starts(with: [ASCII.cr, ASCII.lf]) {
            _ = queue.removeFirst(2)
        }
    }

    /// Splits a head that ends in CRLF CRLF and whose every LF follows a CR into its parts.
    private static func split(_ head: [UInt8]) throws(HTTPParseError) -> HTTPHead {
        let lines = head.dropLast(4).split(separator: ASCII.lf, omittingEmptySubsequences: false).map {
            Array($0.last == ASCII.cr ? $0.dropLast() : $0)
        }
        var headers = HTTPHeaders()
        for (index, line) in lines.enumerated().dropFirst() {
            let header = try parseHeader(line, lineNumber: index + 1)
            headers.add(name: header.name, value: header.value)
        }
        return HTTPHead(startLine: lines[0], headers: headers)
    }

    private static func parseHeader(_ line: [UInt8], lineNumber: Int) throws(HTTPParseError) -> HTTPHeader {
        if let first = line.first, ASCII.isWhitespace(first) {
            throw .foldedHeader(line: lineNumber, line)
        }
        guard let colon = line.firstIndex(of: ASCII.colon) else {
            throw .headerWithoutColon(line: lineNumber, line)
        }
        let name = line[..<colon]
        if let last = name.last, ASCII.isWhitespace(last) {
            throw .whitespaceBeforeColon(line: lineNumber, line)
        }
        guard !name.isEmpty, name.allSatisfy(ASCII.isTokenCharacter) else {
            throw .invalidHeaderName(line: lineNumber, line)
        }
        let value = line[(colon + 1)...].drop(while: ASCII.isWhitespace).reversed().drop(while: ASCII.isWhitespace)
            .reversed()
        guard value.allSatisfy(ASCII.isFieldContent) else {
            throw .invalidHeaderValue(line: lineNumber, line)
        }
        return HTTPHeader(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }
}
