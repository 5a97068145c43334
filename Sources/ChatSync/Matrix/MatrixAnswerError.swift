import ChatMatrix
import ChatWire

/// A homeserver's refusal read the Matrix way: the status's ``ResponseVerdict``, sharpened by
/// the standard error body (`errcode`, `error`, `retry_after_ms`, `soft_logout`), as the
/// ``SyncError`` the worker acts on.
struct MatrixAnswerError {
    var endpoint: MatrixEndpoint
    var status: Int
    var verdict: ResponseVerdict
    var retryAfterHeader: String?
    /// The error body; one that is not the standard one gives "no reason given".
    var body: [UInt8]
    /// Taken out of the server's words should it echo the token back.
    var accessToken: String?

    var syncError: SyncError {
        let error = try? MatrixDecoder.errorBody(body)
        var words = error?.summary ?? "no reason given"
        if let accessToken, !accessToken.isEmpty { words = words.replacing(accessToken, with: "<token>") }
        // Synapse answers a rate limit with 429, but the errcode says it whatever the status.
        if error?.errcode == "M_LIMIT_EXCEEDED" || verdict.isTemporary {
            return .temporary("\(endpoint): \(status) \(words)", retryAfter: retryAfter(error))
        }
        switch verdict {
        case .unauthorized:
            let soft = error?.softLogout == true ? " (soft logout: log in again with the same device ID)" : ""
            return .unauthorized("401 \(words)\(soft)")
        case .rejected:
            return .rejected(status: status, message: words)
        case .success, .temporary, .unexpected:
            return .contract("unexpected status \(status) for \(endpoint)")
        }
    }

    /// The `Retry-After` header when given, else the body's `retry_after_ms`, clamped like the header.
    private func retryAfter(_ error: MatrixErrorBody?) -> Duration? {
        if let header = ResponseVerdict.retryAfter(header: retryAfterHeader) { return header }
        guard let milliseconds = error?.retryAfterMilliseconds else { return nil }
        return min(.milliseconds(milliseconds), ResponseVerdict.longestRetryAfter)
    }
}

extension ResponseVerdict {
    fileprivate var isTemporary: Bool {
        if case .temporary = self { return true }
        return false
    }
}
