/// Why talking to the server failed, sorted by what the worker does next.
/// No case ever carries the token or request headers. The words are for people; what to do
/// (retry, give up, which exit status) is decided from the case alone.
public enum SyncError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The server said wait (5xx, 429, 408; Retry-After if given), or a deadline of the client's
    /// own passed: stay pending, back off, try again.
    case temporary(String, retryAfter: Duration?)
    /// The connection failed (refused, reset, closed, silent): stay pending and try again; when
    /// nothing answers at all (``TransportError/Kind/unreachable``) a one-pass sync gives up at once.
    case transport(TransportError)
    /// A 4xx other than 401: this request will never succeed; the message turns failed.
    case rejected(status: Int, message: String)
    /// 401 (or a 403 on the token itself, or another user's token): the token is wrong, expired
    /// or not this store's user's; stop and say so, never loop. The words start with the status.
    case unauthorized(String)
    /// The server answered something that breaks wire contract v1; nothing from it was stored.
    case contract(String)
    /// The server's TLS certificate or handshake was refused: permanent for that
    /// server until its certificate or the client's trust (`--ca-file`) changes; never retried in a pass.
    case untrusted(String)

    /// A failure to open a stream to the server: a refused TLS certificate or handshake is
    /// ``untrusted(_:)``, anything else ``transport(_:)``.
    static func opening(_ failure: TransportError) -> SyncError {
        failure.kind == .tls ? .untrusted(failure.detail) : .transport(failure)
    }

    public var description: String {
        switch self {
        case .temporary(let reason, let retryAfter):
            "server unavailable: \(reason)" + (retryAfter.map { " (asked to wait \($0.seconds)s)" } ?? "")
        case .transport(let failure) where failure.kind == .unreachable:
            "server unreachable: \(failure)"
        case .transport(let failure):
            "server unavailable: \(failure)"
        case .rejected(let status, let message):
            "rejected by the server (\(status)): \(message)"
        case .unauthorized(let message):
            "the server refused the token (\(message)); check CHATDIR_TOKEN or --token-file"
        case .contract(let reason):
            "the server broke the wire contract: \(reason); nothing from that answer was stored"
        case .untrusted(let reason):
            reason
        }
    }

    /// How long the server asked to wait (`Retry-After` of a temporary failure), if it did.
    public var retryAfter: Duration? {
        if case .temporary(_, let after) = self { return after }
        return nil
    }

    /// Temporary or a transport failure: the request may succeed later, unchanged.
    public var isTemporary: Bool {
        switch self {
        case .temporary, .transport: true
        default: false
        }
    }

    /// Worth another attempt within the same pass, after a backoff: temporary, or a connection
    /// that failed after reaching the server. (When nothing answers at all, waiting in the pass
    /// would only make `chatdir sync` slow to say so.)
    public var isRetryable: Bool {
        switch self {
        case .temporary: true
        case .transport(let failure): failure.kind != .unreachable
        default: false
        }
    }

    /// A retryable failure in words, without the `server unavailable: ` that ``description`` adds.
    var reason: String {
        switch self {
        case .temporary(let reason, _): reason
        case .transport(let failure): failure.description
        default: description
        }
    }
}

extension Duration {
    var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// `1.5s`, for log lines.
    var shortDescription: String {
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)s"
    }
}
