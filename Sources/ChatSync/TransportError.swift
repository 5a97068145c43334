import ChatSystem

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
        /// The peer closed (or reset: ECONNRESET, EPIPE) the connection before the exchange was over.
        case closed
        /// A system call on the connection failed another way (EMFILE, EIO, …).
        case failed
        /// The server's TLS was refused: its certificate (unknown authority, expired, another
        /// host) or its handshake (plain HTTP, too old a TLS). The one kind not worth another
        /// attempt: openers turn it into ``SyncError/untrusted(_:)``.
        case tls
    }

    /// The system's own account of the failure, when a system call on the connection made it:
    /// what ``kind`` was read from (its errno), kept typed up to the edge.
    public enum Cause: Sendable, Equatable {
        /// `send`, `recv` or `poll` on an open connection failed.
        case system(SystemError)
        /// No connection could be made (the name, or every address, failed).
        case connect(Socket.ConnectError)
    }

    public var kind: Kind
    /// What failed, in words: `cannot connect to 127.0.0.1:9: Connection refused`.
    public var detail: String
    /// Where it happened, once a caller knows: the server for ``Kind/unreachable``, else the
    /// request (`GET /v1/me`).
    public var context: String?
    /// The failed system call behind it; nil when the client itself decided (a deadline passed,
    /// the peer closed mid-answer).
    public var cause: Cause?

    public init(_ kind: Kind, _ detail: String, context: String? = nil) {
        self.kind = kind
        self.detail = detail
        self.context = context
    }

    /// A failed call on an open connection, its kind read from the errno: ETIMEDOUT timed out;
    /// ECONNRESET, EPIPE, ENOTCONN closed; ECONNREFUSED, EHOSTUNREACH, ENETUNREACH unreachable;
    /// anything else failed.
    public init(_ error: SystemError, context: String? = nil) {
        self.init(Self.kind(of: error.errno), error.description, context: context)
        cause = .system(error)
    }

    /// A connection that could not be made. Unreachable when the name is unknown, nothing
    /// answered before the deadline, or the errno says nothing answers (ECONNREFUSED,
    /// EHOSTUNREACH, ENETUNREACH, ETIMEDOUT); else failed (a local error such as EMFILE).
    public init(_ error: Socket.ConnectError, context: String? = nil) {
        let kind: Kind
        switch error {
        case .unresolved, .unreachable(_, _, .timedOut), .unreachable(_, _, .noAddress):
            kind = .unreachable
        case .unreachable(_, _, .system(let errno)):
            kind = errno == .timedOut || Self.kind(of: errno) == .unreachable ? .unreachable : .failed
        }
        self.init(kind, error.description, context: context)
        cause = .connect(error)
    }

    /// The kind of failure an errno on a connection means.
    static func kind(of errno: Errno) -> Kind {
        switch errno {
        case .connectionRefused, .hostUnreachable, .networkUnreachable: .unreachable
        case .timedOut: .timedOut
        case .connectionReset, .brokenPipe, .notConnected: .closed
        default: .failed
        }
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
