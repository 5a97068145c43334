import ChatWire

/// What the status line (and headers) of a server's answer mean for the request: the one
/// classification of HTTP answers, used by every API request and by the live upgrade. The
/// caller words the error, because only it knows what it asked for.
enum ResponseVerdict: Sendable, Equatable {
    /// The status the caller hoped for (2xx for a request, 101 for the upgrade).
    case success
    /// 401: the token is wrong or expired.
    case unauthorized
    /// 408, 429, 5xx: try again later, not sooner than `retryAfter` if the server said.
    case temporary(retryAfter: Duration?)
    /// Any other 4xx: the same request will never succeed.
    case rejected
    /// A status the contract does not give (1xx, 3xx, 600 and up, or 2xx for an upgrade).
    case unexpected

    /// The longest a server's `Retry-After` may make the client wait (a larger one is clamped).
    static let longestRetryAfter: Duration = .seconds(3600)

    /// Classifies `status`; `success` is what the request expects (default: any 2xx).
    init(status: Int, headers: HTTPHeaders, success: ClosedRange<Int> = 200...299) {
        switch status {
        case success: self = .success
        case 401: self = .unauthorized
        case 408, 429, 500..<600: self = .temporary(retryAfter: Self.retryAfter(header: headers["Retry-After"]))
        case 400..<500: self = .rejected
        default: self = .unexpected
        }
    }

    /// Reads a `Retry-After` header in seconds, clamped to 0…``longestRetryAfter``; nil when it
    /// is missing or not a whole number (the HTTP-date form is not part of the contract).
    /// The only place a `Retry-After` is read.
    static func retryAfter(header: String?) -> Duration? {
        guard let header, let seconds = Int(header.trimmingSpaces) else { return nil }
        return min(.seconds(max(seconds, 0)), longestRetryAfter)
    }
}

extension String {
    fileprivate var trimmingSpaces: Substring {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
