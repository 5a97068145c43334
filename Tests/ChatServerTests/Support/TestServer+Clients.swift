import ChatDomain
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatServer

/// What tests of the server itself add to the shared ``TestServer``: raw HTTP and WebSocket
/// clients that send exactly the bytes a test writes.
extension TestServer {
    func client() throws -> TestHTTPClient {
        try TestHTTPClient(port: port)
    }

    /// A live socket for `user`, returned once the server has registered it (so events
    /// published afterwards reach it).
    func live(_ user: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> TestWebSocketClient {
        let before = server.liveSocketCount(for: try UserID(user))
        let socket = try TestWebSocketClient(port: port, token: TestData.token(user))
        try waitUntil("\(user)'s live socket is registered", sourceLocation: sourceLocation) {
            server.liveSocketCount(for: try UserID(user)) > before
        }
        return socket
    }
}
