import ChatDomain
import ChatSystem
import Foundation

@testable import ChatSync

/// A ``ByteStream`` whose peer is a script, in process (no socket): what the "server" answers,
/// and how, one read at a time: a trickle, a stall until the reader's deadline, a reset.
final class ScriptedStream: ByteStream, @unchecked Sendable {
    /// What ``Step/reset`` throws: the failure TCPConnection reports for a recv that met ECONNRESET.
    static let resetError = TransportError(SystemError(operation: "recv", path: "", errno: .connectionReset))

    enum Step {
        /// These bytes, as one read.
        case bytes([UInt8])
        /// The answer to what the client wrote so far (say, an upgrade's Sec-WebSocket-Accept),
        /// as one read or one byte per read.
        case answer(trickle: Bool, @Sendable (_ written: [UInt8]) -> [UInt8])
        /// Nothing comes: the read waits out its deadline (or a shutdown).
        case stall
        /// The connection is reset: the read fails as recv does on ECONNRESET.
        case reset
        /// The read fails with this error (say, a reset as a TLS stream reports it).
        case fail(TransportError)
    }

    private let condition = NSCondition()
    private var steps: [Step]
    private var writtenBytes: [UInt8] = []
    private var isShut = false

    init(_ steps: [Step]) {
        self.steps = steps
    }

    /// A whole answer, one byte per read.
    static func trickling(_ text: String) -> ScriptedStream {
        ScriptedStream(Array(text.utf8).map { .bytes([$0]) })
    }

    var written: String {
        condition.withLock { String(decoding: writtenBytes, as: UTF8.self) }
    }

    func write(_ bytes: [UInt8], until deadline: ContinuousClock.Instant) throws(TransportError) {
        condition.withLock { writtenBytes += bytes }
    }

    /// After the last step the peer has closed the connection.
    func read(until deadline: ContinuousClock.Instant) throws(TransportError) -> ByteStreamRead {
        condition.lock()
        defer { condition.unlock() }
        guard !isShut, !steps.isEmpty else { return .closed }
        switch steps.removeFirst() {
        case .bytes(let bytes):
            return .bytes(bytes)
        case .answer(let trickle, let respond):
            let bytes = respond(writtenBytes)
            guard trickle, let first = bytes.first else { return .bytes(bytes) }
            steps.insert(contentsOf: bytes.dropFirst().map { .bytes([$0]) }, at: 0)
            return .bytes([first])
        case .stall:
            steps.insert(.stall, at: 0)
            let left = deadline - .now
            let until = Date(
                timeIntervalSinceNow: Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18)
            while !isShut, condition.wait(until: until) {}
            return isShut ? .closed : .timedOut
        case .reset:
            throw ScriptedStream.resetError
        case .fail(let error):
            throw error
        }
    }

    func shutdown() {
        condition.withLock {
            isShut = true
            condition.broadcast()
        }
    }
}

/// Hands out scripted streams in order, one per connection the client opens; counts them.
final class ScriptedConnector: @unchecked Sendable {
    private let lock = NSLock()
    private var streams: [ScriptedStream]
    private(set) var opened = 0

    init(_ streams: [ScriptedStream]) {
        self.streams = streams
    }

    var connector: Connector { Connector(open: open) }

    var connections: Int { lock.withLock { opened } }

    func open(_ server: ServerAddress, _ deadline: ContinuousClock.Instant) throws(TransportError) -> any ByteStream {
        let next: ScriptedStream? = lock.withLock {
            guard !streams.isEmpty else { return nil }
            opened += 1
            return streams.removeFirst()
        }
        guard let next else {
            throw TransportError(
                .unreachable, "cannot connect to \(server.host):\(server.port): no more scripted connections")
        }
        return next
    }
}

extension String {
    /// An HTTP/1.1 answer with a JSON body, closing the connection after it.
    static func answer(_ status: Int, _ body: String, headers: [String] = []) -> String {
        "HTTP/1.1 \(status) X\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n"
            + headers.map { $0 + "\r\n" }.joined() + "\r\n" + body
    }
}
