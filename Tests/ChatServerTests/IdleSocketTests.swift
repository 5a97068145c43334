import ChatDomain
import ChatSystem
import ChatTestSupport
import Testing

@testable import ChatServer

/// Sockets that connect and never send a request must not use up the server's connections.
@Suite(.ownThreads) struct IdleSocketTests {
    @Test("more idle sockets than the connection cap do not keep a real request out")
    func idleSocketsDoNotStarveRequests() throws {
        let server = try TestServer { $0.maxConnections = 4 }
        // Connected and silent: a test client that never sends (each closes with its object).
        var idle: [TestHTTPClient] = []
        defer { idle.removeAll() }
        for _ in 0..<12 { idle.append(try TestHTTPClient(port: server.port)) }
        let client = try server.client()
        let response = try client.request("GET", "/v1/me")
        #expect(response.status == 200, "\(response.status) \(response.text)")
        #expect(response.json["userId"].string == "alice")
    }

    @Test("connections that have spoken are not dropped to make room: past the cap, a newcomer gets 503")
    func spokenConnectionsKept() throws {
        let server = try TestServer { $0.maxConnections = 2 }
        let first = try server.client()
        let second = try server.client()
        #expect(try first.request("GET", "/v1/me").status == 200)
        #expect(try second.request("GET", "/v1/me").status == 200)
        let third = try server.client()
        #expect(try third.readResponse().status == 503)
        #expect(try first.request("GET", "/v1/me").status == 200)
    }

    @Test("a socket that sends nothing is closed after the request timeout, not the keep-alive idle timeout")
    func silentSocketClosed() throws {
        let server = try TestServer {
            $0.requestTimeoutMilliseconds = 300
            $0.idleTimeoutMilliseconds = 600_000
        }
        let client = try server.client()
        #expect(client.closes(withinMilliseconds: 20_000))
    }

    @Test("a keep-alive connection that has been used still gets the idle timeout")
    func usedConnectionKeepsIdleTimeout() throws {
        let server = try TestServer {
            $0.requestTimeoutMilliseconds = 300
            $0.idleTimeoutMilliseconds = 600_000
        }
        let client = try server.client()
        #expect(try client.request("GET", "/v1/me").status == 200)
        // Well past the request timeout, the connection still answers.
        #expect(!client.closes(withinMilliseconds: 1_500))
    }
}
