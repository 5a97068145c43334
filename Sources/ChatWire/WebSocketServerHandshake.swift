/// The server side of the opening handshake: checks an upgrade request and makes the 101 answer.
public enum WebSocketServerHandshake {
    /// The 101 Switching Protocols response accepting `request` as a WebSocket upgrade (RFC 6455 §4.2).
    ///
    /// Required: method GET, HTTP/1.1, `Upgrade` listing `websocket` and `Connection` listing
    /// `upgrade` (ignoring case, token by token), `Sec-WebSocket-Version: 13`, and one
    /// `Sec-WebSocket-Key` that is base64 of 16 bytes. No extension or subprotocol is selected.
    /// - Parameter headers: more headers for the 101 response.
    /// - Throws: `WebSocketUpgradeError` with the response to send instead: 405 for another
    ///   method, 426 with `Sec-WebSocket-Version: 13` for another version, 400 otherwise.
    public static func accept(_ request: HTTPRequest, headers: HTTPHeaders = [:]) throws(WebSocketUpgradeError)
        -> HTTPResponse
    {
        guard request.method == "GET" else { throw .methodNotGet(request.method) }
        guard request.version == .http1_1 else { throw .notHTTP11(request.version) }
        guard request.headers.containsToken("websocket", for: "Upgrade") else {
            throw .missingToken("websocket", header: "Upgrade")
        }
        guard request.headers.containsToken("upgrade", for: "Connection") else {
            throw .missingToken("upgrade", header: "Connection")
        }
        let versions = request.headers.values(for: "Sec-WebSocket-Version")
        guard versions == [WebSocketHandshake.version] else { throw .unsupportedVersion(versions) }
        let keys = request.headers.values(for: "Sec-WebSocket-Key")
        guard keys.count == 1, let key = keys.first, Base64.decode(key)?.count == 16 else { throw .invalidKey(keys) }

        var responseHeaders: HTTPHeaders = [
            "Upgrade": "websocket",
            "Connection": "Upgrade",
            "Sec-WebSocket-Accept": WebSocketHandshake.acceptValue(forKey: key),
        ]
        for header in headers {
            responseHeaders.add(name: header.name, value: header.value)
        }
        return HTTPResponse(status: .switchingProtocols, headers: responseHeaders)
    }
}
