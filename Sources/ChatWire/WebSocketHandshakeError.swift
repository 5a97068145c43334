/// Why a server's answer to a WebSocket upgrade request does not open a connection.
public struct WebSocketHandshakeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status the server answered with: a 401 here means the token was refused.
    public let status: HTTPStatus
    /// One line saying what was wrong with the answer.
    public let message: String

    public var description: String { message }

    static func unexpectedStatus(_ status: HTTPStatus) -> Self {
        Self(status: status, message: "server answered \(status) instead of 101 Switching Protocols")
    }

    static func missingToken(_ token: String, header: String, values: [String]) -> Self {
        let found = values.isEmpty ? "no \(header) header" : "\(header) \(ASCII.quoted(values))"
        return Self(status: .switchingProtocols, message: "server's 101 has \(found), which does not list \"\(token)\"")
    }

    static func wrongAccept(_ values: [String], expected: String) -> Self {
        let found = values.isEmpty ? "no Sec-WebSocket-Accept" : "Sec-WebSocket-Accept \(ASCII.quoted(values))"
        return Self(
            status: .switchingProtocols,
            message:
                "server's 101 has \(found), expected \"\(expected)\"; a proxy may have answered instead of the server")
    }

    static func notOffered(header: String, value: String) -> Self {
        Self(
            status: .switchingProtocols,
            message: "server's 101 selects \(header) \(ASCII.quoted(value.utf8)), which the client did not offer")
    }
}
