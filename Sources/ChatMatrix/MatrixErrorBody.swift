/// The standard error body of a Matrix answer: `{"errcode": "M_…", "error": "…"}`, with
/// `retry_after_ms` on rate limits and `soft_logout` on expired tokens.
public struct MatrixErrorBody: Sendable, Hashable {
    /// `M_FORBIDDEN`, `M_UNKNOWN_TOKEN`, `M_LIMIT_EXCEEDED`, `M_TOO_LARGE`, …
    public var errcode: String
    /// The server's words, on one line and cut short.
    public var message: String?
    /// How long to wait before trying again, in milliseconds.
    public var retryAfterMilliseconds: Int?
    /// The token expired but the device may log in again and keep its data (`M_UNKNOWN_TOKEN`).
    public var softLogout: Bool

    /// The longest ``message`` is kept.
    public static let maxMessageLength = 300

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        errcode = try field.required("errcode").typeName()
        message = try (field.optional("error")?.string()).map {
            MatrixText.oneLine($0, maxLength: Self.maxMessageLength)
        }
        retryAfterMilliseconds = try field.optional("retry_after_ms")?.integer()
        softLogout = try field.optional("soft_logout")?.bool() ?? false
    }

    /// `M_LIMIT_EXCEEDED: Too Many Requests` — the code and the server's words, for an error message.
    public var summary: String {
        message.map { "\(errcode): \($0)" } ?? errcode
    }
}
