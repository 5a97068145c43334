/// The status line and headers of a response, as the client side of a WebSocket handshake reads them.
public struct HTTPResponseHead: Sendable, Hashable {
    public var version: HTTPVersion
    /// The code and the reason phrase as the server wrote it.
    public var status: HTTPStatus
    public var headers: HTTPHeaders

    public init(version: HTTPVersion = .http1_1, status: HTTPStatus, headers: HTTPHeaders = [:]) {
        self.version = version
        self.status = status
        self.headers = headers
    }
}
