/// Why the bytes did not get through: connecting, sending or receiving failed, or the peer went
/// away or went quiet. Never a judgement on what the server said (that is ``SyncError``'s other
/// cases); always worth another attempt later, unchanged.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Nothing answers at the address (name unknown, refused, no route): a one-pass sync
        /// gives up at once instead of backing off.
        case unreachable
        /// Nothing (or not all of it) came before the deadline.
        case timedOut
        /// The peer closed the connection before the exchange was over.
        case closed
        /// A system call on the connection failed (poll, send, recv: a reset, for one).
        case failed
        /// The server's TLS was refused: its certificate (unknown authority, expired, another
        /// host) or its handshake (plain HTTP, too old a TLS). The one kind not worth another
        /// attempt: openers turn it into ``SyncError/untrusted(_:)``.
        case tls
    }

    public var kind: Kind
    /// What failed, in words: `cannot connect to 127.0.0.1:9: Connection refused`.
    public var detail: String
    /// Where it happened, once a caller knows: the server for ``Kind/unreachable``, else the
    /// request (`GET /v1/me`).
    public var context: String?

    public init(_ kind: Kind, _ detail: String, context: String? = nil) {
        self.kind = kind
        self.detail = detail
        self.context = context
    }

    public var description: String {
        context.map { "\($0): \(detail)" } ?? detail
    }

    /// The same failure, said to have happened in `context` (a server or a request).
    func within(_ context: String) -> TransportError {
        var copy = self
        copy.context = context
        return copy
    }
}
