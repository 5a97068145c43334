/// Why talking to the server failed, sorted by what the worker does next.
/// No case ever carries the token or request headers.
public enum SyncError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Timeout, refused, reset, 5xx, 429: stay pending, back off, try again (Retry-After if given).
    case temporary(String, retryAfter: Duration?)
    /// Nothing answers at the server's address (refused, no route, name unknown): the same as
    /// temporary, but a one-pass sync gives up at once instead of backing off.
    case unreachable(String)
    /// A 4xx other than 401: this request will never succeed; the message turns failed.
    case rejected(status: Int, message: String)
    /// 401: the token is wrong or expired; stop and say so, never loop.
    case unauthorized(String)
    /// The server answered something that breaks the wire contract; nothing from it was stored.
    case badResponse(String)

    public var description: String {
        switch self {
        case let .temporary(reason, retryAfter):
            "server unavailable: \(reason)" + (retryAfter.map { " (asked to wait \($0.seconds)s)" } ?? "")
        case let .unreachable(reason):
            "server unreachable: \(reason)"
        case let .rejected(status, message):
            "rejected by the server (\(status)): \(message)"
        case let .unauthorized(message):
            "the server refused the token (401: \(message)); check CHATDIR_TOKEN or --token-file"
        case let .badResponse(reason):
            "the server broke the wire contract: \(reason); nothing from that answer was stored"
        }
    }

    /// How long the server asked to wait (`Retry-After` of a temporary failure), if it did.
    public var retryAfter: Duration? {
        if case let .temporary(_, after) = self { return after }
        return nil
    }

    /// Temporary or unreachable: the request may succeed later, unchanged.
    public var isTemporary: Bool {
        switch self {
        case .temporary, .unreachable: true
        default: false
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
