import ChatWire

/// Reads the head of a server's answer from a ``ByteStream``, until a deadline: the one loop
/// for both an API answer (``HTTPClient``) and the WebSocket upgrade (``LiveConnection``).
/// Bytes after the head's blank line come back as `remainder` (body, or the first frames).
enum ResponseHeadReader {
    /// What the head answers, for the words of its errors.
    enum Purpose: Sendable {
        case request
        case upgrade

        func noHead(received: Int) -> TransportError {
            switch self {
            case .request:
                TransportError(
                    .timedOut,
                    received == 0 ? "no answer in time" : "only \(received) bytes of the answer's head came in time")
            case .upgrade:
                TransportError(.timedOut, "no answer to the WebSocket upgrade")
            }
        }

        func closed(received: Int) -> TransportError {
            switch self {
            case .request:
                TransportError(
                    .closed,
                    received > 0
                        ? "the server closed the connection mid-answer"
                        : "the server closed the connection without answering")
            case .upgrade:
                TransportError(.closed, "the server closed the connection during the upgrade")
            }
        }

        func unreadable(_ error: HTTPParseError) -> SyncError {
            switch self {
            case .request: .contract("an unreadable answer: \(error.message)")
            case .upgrade: .contract("the upgrade answer: \(error.message)")
            }
        }
    }

    static func read(from stream: any ByteStream, until deadline: ContinuousClock.Instant, for purpose: Purpose)
        throws(SyncError) -> (head: HTTPResponseHead, remainder: [UInt8])
    {
        var received = 0
        return try read(from: stream, until: deadline, for: purpose, received: &received)
    }

    /// ``read(from:until:for:)`` counting in `received` the answer's bytes that came, also
    /// when it throws: none means the server never began to answer.
    static func read(
        from stream: any ByteStream, until deadline: ContinuousClock.Instant, for purpose: Purpose,
        received: inout Int
    ) throws(SyncError) -> (head: HTTPResponseHead, remainder: [UInt8]) {
        var parser = HTTPResponseHeadParser()
        // The deadline bounds the wait, never bytes already there: the first read is always
        // made, so a thread that got the CPU late (a loaded machine) takes an answer that came.
        var hasRead = false
        while true {
            guard !hasRead || ContinuousClock.now < deadline else {
                throw .transport(purpose.noHead(received: received))
            }
            hasRead = true
            let read: ByteStreamRead
            do { read = try stream.read(until: deadline) } catch { throw .transport(error) }
            switch read {
            case .timedOut:
                continue
            case .closed:
                throw .transport(purpose.closed(received: received))
            case .bytes(let bytes):
                received += bytes.count
                parser.feed(bytes)
            }
            let parsed: (head: HTTPResponseHead, remainder: [UInt8])?
            do { parsed = try parser.parse() } catch { throw purpose.unreadable(error) }
            if let parsed { return parsed }
        }
    }
}
