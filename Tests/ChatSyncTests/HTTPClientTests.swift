import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// The HTTP client over scripted byte streams (``ScriptedStream``, no socket): a peer that
/// stalls, resets mid-answer or trickles, and what a request (and a pass's retry) makes of it.
@Suite struct HTTPClientTests {
    static let server = ServerAddress(host: "chat.example", port: 8080)
    static let me = String.answer(200, #"{"userId":"alice"}"#)

    static func client(_ scripted: ScriptedConnector, timeout: Duration = .seconds(10)) -> APIClient {
        APIClient(server: server, token: "t", timeout: timeout, connector: scripted.connector)
    }

    /// An engine on a fresh store of alice's whose connections come from `scripted`.
    static func engine(
        _ scripted: ScriptedConnector, in directory: TemporaryDirectory, timeout: Duration = .seconds(10)
    ) throws -> SyncEngine {
        var options = SyncEngine.Options()
        options.connector = scripted.connector
        options.requestTimeout = timeout
        options.backoff = Backoff(initial: .milliseconds(1), maximum: .milliseconds(2))
        let store = try Store.create(at: directory.path + "/store", manifest: Manifest(userID: try UserID("alice")))
        return try SyncEngine(store: store, server: server, token: "t", options: options)
    }

    @Test("a stream that stalls past the request's deadline is a temporary transport failure naming the request")
    func stallIsTemporary() async throws {
        let scripted = ScriptedConnector([ScriptedStream([.stall])])
        let expected = SyncError.transport(TransportError(.timedOut, "no answer in time", context: "GET /v1/me"))
        await #expect(throws: expected) { _ = try await Self.client(scripted, timeout: .milliseconds(200)).me() }
        #expect(expected.isRetryable)
        #expect(expected.description == "server unavailable: GET /v1/me: no answer in time")
    }

    /// A client whose one connection opens only after its request's deadline has passed, as
    /// when the thread doing the request gets the CPU late on a loaded machine.
    static func lateClient(_ stream: ScriptedStream) -> APIClient {
        let connector = Connector { _, deadline throws(TransportError) in
            while ContinuousClock.now <= deadline { Thread.sleep(forTimeInterval: 0.02) }
            return stream
        }
        return APIClient(server: server, token: "t", timeout: .milliseconds(50), connector: connector)
    }

    @Test("an answer already there when the reader comes after the deadline is taken, not refused as late")
    func lateReaderTakesTheAnswer() async throws {
        let stream = ScriptedStream([.bytes(Array(Self.me.utf8))])
        #expect(try await Self.lateClient(stream).me() == (try UserID("alice")))
    }

    @Test("after the deadline one read is made, not a wait: half an answer there then fails as late")
    func lateReaderStillBounded() async throws {
        let half = Array(Self.me.utf8).prefix(20)
        let stream = ScriptedStream([.bytes(Array(half)), .stall])
        let expected = SyncError.transport(
            TransportError(.timedOut, "only 20 bytes of the answer's head came in time", context: "GET /v1/me"))
        await #expect(throws: expected) { _ = try await Self.lateClient(stream).me() }
    }

    @Test("a pass retries a stalled request on a new connection and uses the answer that comes")
    func stallIsRetried() async throws {
        let stalled = ScriptedStream([.stall])
        let good = ScriptedStream([.bytes(Array(Self.me.utf8))])
        let scripted = ScriptedConnector([stalled, good])
        let directory = try TemporaryDirectory()
        let engine = try Self.engine(scripted, in: directory, timeout: .milliseconds(200))
        let me = try await engine.retrying { api in try await api.me() }
        #expect(me == (try UserID("alice")))
        #expect(scripted.connections == 2)
        #expect(
            stalled.written.hasPrefix("GET /v1/me HTTP/1.1\r\n") && good.written.hasPrefix("GET /v1/me HTTP/1.1\r\n"))
    }

    @Test("a connection reset in the middle of the answer is a temporary failure; nothing of the half answer is used")
    func resetMidAnswer() async throws {
        let half = Array(Self.me.utf8).prefix(Self.me.utf8.count - 6)
        let scripted = ScriptedConnector([ScriptedStream([.bytes(Array(half)), .reset])])
        let expected = SyncError.transport(ScriptedStream.resetError.within("GET /v1/me"))
        await #expect(throws: expected) { _ = try await Self.client(scripted).me() }
        #expect(expected.description == "server unavailable: GET /v1/me: recv: Connection reset by peer")
    }

    @Test("a pass retries a request whose connection was reset mid-answer")
    func resetIsRetried() async throws {
        let half = Array(Self.me.utf8).prefix(30)
        let scripted = ScriptedConnector([
            ScriptedStream([.bytes(Array(half)), .reset]), ScriptedStream([.bytes(Array(Self.me.utf8))]),
        ])
        let directory = try TemporaryDirectory()
        let me = try await Self.engine(scripted, in: directory).retrying { api in try await api.me() }
        #expect(me == (try UserID("alice")))
        #expect(scripted.connections == 2)
    }

    @Test("an answer trickled one byte per read still parses, head and body")
    func trickle() async throws {
        let stream = ScriptedStream.trickling(Self.me)
        let scripted = ScriptedConnector([stream])
        #expect(try await Self.client(scripted).me() == (try UserID("alice")))
        #expect(scripted.connections == 1)
    }

    @Test("the peer closing before the answer ends is a temporary failure, with the words it had before the seam")
    func closedMidAnswer() async throws {
        let head = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"
        let scripted = ScriptedConnector([ScriptedStream([.bytes(Array(head.utf8))]), ScriptedStream([])])
        await #expect(
            throws: SyncError.transport(
                TransportError(.closed, "the server closed the connection mid-answer", context: "GET /v1/me"))
        ) {
            _ = try await Self.client(scripted).me()
        }
        await #expect(
            throws: SyncError.transport(
                TransportError(.closed, "the server closed the connection without answering", context: "GET /v1/me"))
        ) {
            _ = try await Self.client(scripted).me()
        }
    }

    /// `/v1/me`'s answer on a connection kept open after it.
    static let meKeptOpen = "HTTP/1.1 200 OK\r\nContent-Length: 18\r\n\r\n" + #"{"userId":"alice"}"#

    /// A connection that answers `/v1/me` kept open, then does `next`; and the fresh one after it.
    static func keptOpen(then next: [ScriptedStream.Step]) -> (scripted: ScriptedConnector, fresh: ScriptedStream) {
        let reused = ScriptedStream([.bytes(Array(meKeptOpen.utf8))] + next)
        let fresh = ScriptedStream([.bytes(Array(me.utf8))])
        return (ScriptedConnector([reused, fresh]), fresh)
    }

    @Test("a kept-open connection the server closed while it lay idle: the request goes again on a fresh one")
    func idleCloseIsResent() async throws {
        let (scripted, fresh) = Self.keptOpen(then: [])
        let client = Self.client(scripted)
        #expect(try await client.me() == (try UserID("alice")))
        #expect(try await client.me() == (try UserID("alice")))
        #expect(scripted.connections == 2)
        #expect(fresh.written.hasPrefix("GET /v1/me HTTP/1.1\r\n"))
    }

    @Test("a kept-open TLS connection the server reset while idle: the failed read before any answer byte is resent")
    func idleResetOverTLSIsResent() async throws {
        let reset = TransportError(.failed, "reading with chat.example:8080 failed: ECONNRESET")
        let (scripted, _) = Self.keptOpen(then: [.fail(reset)])
        let client = Self.client(scripted)
        #expect(try await client.me() == (try UserID("alice")))
        #expect(try await client.me() == (try UserID("alice")))
        #expect(scripted.connections == 2)
    }

    @Test(
        "a kept-open connection whose answer did not come in time: the server may be acting on it, so it is not resent")
    func timeoutIsNotResent() async throws {
        let (scripted, fresh) = Self.keptOpen(then: [.stall])
        // Long enough for the first answer, already there, on a machine busy with the whole suite.
        let client = Self.client(scripted, timeout: .seconds(3))
        #expect(try await client.me() == (try UserID("alice")))
        await #expect(throws: SyncError.self) { _ = try await client.me() }
        #expect(scripted.connections == 1)
        #expect(fresh.written.isEmpty)
    }

    @Test(
        "a kept-open connection closed after the answer began: the server may have acted, so the client does not send it again"
    )
    func closeMidAnswerIsNotResent() async throws {
        let (scripted, fresh) = Self.keptOpen(then: [.bytes(Array("HTTP/1.1 2".utf8))])
        let client = Self.client(scripted)
        #expect(try await client.me() == (try UserID("alice")))
        await #expect(
            throws: SyncError.transport(
                TransportError(.closed, "the server closed the connection mid-answer", context: "GET /v1/me"))
        ) {
            _ = try await client.me()
        }
        #expect(scripted.connections == 1)
        #expect(fresh.written.isEmpty)
    }

    @Test("nothing to connect to is unreachable, named by the server; a pass does not wait to retry it")
    func unreachable() async throws {
        let scripted = ScriptedConnector([])
        let directory = try TemporaryDirectory()
        await #expect(
            throws: SyncError.transport(
                TransportError(
                    .unreachable, "cannot connect to chat.example:8080: no more scripted connections",
                    context: "http://chat.example:8080"))
        ) {
            _ = try await Self.engine(scripted, in: directory).retrying { api in try await api.me() }
        }
    }
}
