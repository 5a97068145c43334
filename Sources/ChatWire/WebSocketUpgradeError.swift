/// Why a request cannot be upgraded to a WebSocket, and what to answer instead.
public struct WebSocketUpgradeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status to answer with.
    public let status: HTTPStatus
    /// One line saying what the request lacks, for the error body.
    public let message: String
    /// Headers the answer must carry: `Allow` with 405, `Sec-WebSocket-Version` with 426.
    public let headers: HTTPHeaders

    public var description: String { "\(status): \(message)" }

    static func methodNotGet(_ method: String) -> Self {
        Self(
            status: .methodNotAllowed, message: "a WebSocket upgrade must use GET, not \(ASCII.quoted(method.utf8))",
            headers: ["Allow": "GET"])
    }

    static func notHTTP11(_ version: HTTPVersion) -> Self {
        Self(status: .badRequest, message: "a WebSocket upgrade needs HTTP/1.1, not \(version)", headers: [:])
    }

    static func missingToken(_ token: String, header: String) -> Self {
        Self(status: .badRequest, message: "a WebSocket upgrade needs \(header): \(token)", headers: [:])
    }

    static func unsupportedVersion(_ values: [String]) -> Self {
        let found = values.isEmpty ? "no Sec-WebSocket-Version" : "Sec-WebSocket-Version \(ASCII.quoted(values))"
        return Self(
            status: .upgradeRequired, message: "\(found) is not supported; send Sec-WebSocket-Version: 13",
            headers: ["Sec-WebSocket-Version": WebSocketHandshake.version])
    }

    static func invalidKey(_ values: [String]) -> Self {
        let found = values.isEmpty ? "no Sec-WebSocket-Key" : "Sec-WebSocket-Key \(ASCII.quoted(values))"
        return Self(
            status: .badRequest, message: "\(found); send one key that is base64 of 16 random bytes", headers: [:])
    }
}
