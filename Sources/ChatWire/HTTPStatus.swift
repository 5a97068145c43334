/// An HTTP status code with its reason phrase, as written in a status line.
public struct HTTPStatus: Sendable, Hashable, CustomStringConvertible {
    /// The three-digit code, 100...999.
    public let code: Int
    /// The text after the code in a status line; informative only, never compare it.
    public let reasonPhrase: String

    /// A status with the given code; the reason phrase defaults to the standard one
    /// (RFC 9110 §15, RFC 6585) or is empty for codes this file does not list.
    public init(code: Int, reasonPhrase: String? = nil) {
        self.code = code
        self.reasonPhrase = reasonPhrase ?? Self.standardReasonPhrases[code] ?? ""
    }

    /// `"404 Not Found"`.
    public var description: String { reasonPhrase.isEmpty ? "\(code)" : "\(code) \(reasonPhrase)" }

    private static let standardReasonPhrases: [Int: String] = [
        101: "Switching Protocols",
        200: "OK",
        201: "Created",
        204: "No Content",
        400: "Bad Request",
        401: "Unauthorized",
        403: "Forbidden",
        404: "Not Found",
        405: "Method Not Allowed",
        409: "Conflict",
        413: "Content Too Large",
        426: "Upgrade Required",
        429: "Too Many Requests",
        431: "Request Header Fields Too Large",
        500: "Internal Server Error",
        501: "Not Implemented",
        503: "Service Unavailable",
        505: "HTTP Version Not Supported",
    ]

    public static let switchingProtocols = HTTPStatus(code: 101)
    public static let ok = HTTPStatus(code: 200)
    public static let created = HTTPStatus(code: 201)
    public static let noContent = HTTPStatus(code: 204)
    public static let badRequest = HTTPStatus(code: 400)
    public static let unauthorized = HTTPStatus(code: 401)
    public static let forbidden = HTTPStatus(code: 403)
    public static let notFound = HTTPStatus(code: 404)
    public static let methodNotAllowed = HTTPStatus(code: 405)
    public static let conflict = HTTPStatus(code: 409)
    public static let contentTooLarge = HTTPStatus(code: 413)
    public static let upgradeRequired = HTTPStatus(code: 426)
    public static let tooManyRequests = HTTPStatus(code: 429)
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    public static let internalServerError = HTTPStatus(code: 500)
    public static let notImplemented = HTTPStatus(code: 501)
    public static let serviceUnavailable = HTTPStatus(code: 503)
    public static let httpVersionNotSupported = HTTPStatus(code: 505)
}
