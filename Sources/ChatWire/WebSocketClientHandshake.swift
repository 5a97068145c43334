/// The client side of the opening handshake: the upgrade request to send and the check of the answer.
///
/// ```
/// let handshake = WebSocketClientHandshake(host: "chat.example:8080", target: HTTPRequestTarget("/v1/live"),
///                                          headers: ["Authorization": "Bearer \(token)"])
/// write(handshake.request.serialized())
/// // feed an HTTPResponseHeadParser until it returns (head, remainder)
/// try handshake.validate(head)
/// var connection = WebSocketConnection(role: .client)
/// connection.feed(remainder)
/// ```
public struct WebSocketClientHandshake: Sendable {
    /// The `Sec-WebSocket-Key` sent, which the answer must prove it read.
    public let key: String
    /// The GET upgrade request to write to the socket.
    public let request: HTTPRequest

    /// - Parameters:
    ///   - host: the `Host` header: the server's name, and `:port` unless it is 80.
    ///   - target: the path and query to upgrade.
    ///   - headers: more headers to send, such as `Authorization`.
    ///   - key: the `Sec-WebSocket-Key`; a fresh random one unless a test needs a fixed value.
    public init(
        host: String, target: HTTPRequestTarget, headers: HTTPHeaders = [:], key: String = WebSocketHandshake.makeKey()
    ) {
        var allHeaders: HTTPHeaders = [
            "Host": host,
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Key": key,
            "Sec-WebSocket-Version": WebSocketHandshake.version,
        ]
        for header in headers {
            allHeaders.add(name: header.name, value: header.value)
        }
        self.key = key
        request = HTTPRequest(method: "GET", target: target, headers: allHeaders)
    }

    /// Checks that `response` accepts this upgrade (RFC 6455 §4.1): status 101, `Upgrade`
    /// listing `websocket`, `Connection` listing `upgrade` (both ignoring case, token by token),
    /// the right `Sec-WebSocket-Accept`, and no extension or subprotocol, since none was offered.
    /// - Throws: `WebSocketHandshakeError` saying which of these failed.
    public func validate(_ response: HTTPResponseHead) throws(WebSocketHandshakeError) {
        guard response.status.code == 101 else { throw .unexpectedStatus(response.status) }
        guard response.headers.containsToken("websocket", for: "Upgrade") else {
            throw .missingToken("websocket", header: "Upgrade", values: response.headers.values(for: "Upgrade"))
        }
        guard response.headers.containsToken("upgrade", for: "Connection") else {
            throw .missingToken("upgrade", header: "Connection", values: response.headers.values(for: "Connection"))
        }
        let expected = WebSocketHandshake.acceptValue(forKey: key)
        let accept = response.headers.values(for: "Sec-WebSocket-Accept")
        guard accept == [expected] else { throw .wrongAccept(accept, expected: expected) }
        for name in ["Sec-WebSocket-Extensions", "Sec-WebSocket-Protocol"] {
            if let value = response.headers[name] { throw .notOffered(header: name, value: value) }
        }
    }
}
