import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatServer

/// Bad bytes get the right status and a closed connection, and everyone else is still served.
@Suite(.ownThreads) struct BadInputTests {
    static let validBody = #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","text":"hi"}"#

    @Test(
        "a malformed head is answered with its status, then the connection is closed",
        arguments: [
            ("GET /v1/me\r\nHost: x\r\n\r\n", 400),
            ("GET  /v1/me HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("GET v1/me HTTP/1.1\r\nHost: x\r\n\r\n", 400),
            ("GET /v1/me HTTP/1.1\nHost: x\n\n", 400),
            ("GET /v1/me HTTP/1.1\r\nHost : x\r\n\r\n", 400),
            ("GET /v1/me HTTP/1.1\r\nNo colon here\r\n\r\n", 400),
            ("GET /v1/me HTTP/1.1\r\n\r\n", 400),
            (
                "POST /v1/conversations/ab/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
                400
            ),
            ("POST /v1/conversations/ab/messages HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n", 400),
            ("POST /v1/conversations/ab/messages HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\n", 400),
            ("POST /v1/conversations/ab/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
            ("GET /v1/me HTTP/2.0\r\nHost: x\r\n\r\n", 505),
            ("POST /v1/conversations/ab/messages HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999\r\n\r\n", 413),
        ])
    func malformedHeads(raw: String, status: Int) throws {
        let server = try TestServer()
        let client = try server.client()
        try client.send(raw)
        let response = try client.readResponse()
        #expect(response.status == status, "\(raw.debugDescription): \(response.text)")
        #expect(response.json["error"].string?.isEmpty == false)
        #expect(response.headers["Connection"] == "close")
        #expect(client.closes())
        #expect(try server.client().request("GET", "/v1/me").status == 200)
    }

    @Test("a head over 16 KiB is 431")
    func oversizedHead() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.send("GET /v1/me HTTP/1.1\r\nHost: x\r\nX-Padding: \(String(repeating: "a", count: 17_000))\r\n\r\n")
        #expect(try client.readResponse().status == 431)
        #expect(client.closes())
    }

    @Test("a POST without Content-Length has an empty body: 400, and nothing is stored")
    func missingContentLength() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.send(
            "POST /v1/conversations/ab/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer alice-token\r\n\r\n"
                + Self.validBody)
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(response.json["error"].string?.contains("empty") == true)
        #expect(try server.client().request("GET", "/v1/conversations/ab/messages").json["items"].array.isEmpty)
    }

    @Test("a Content-Length shorter than the body: 400 for the cut JSON, then 400 for the rest, then close")
    func shortContentLength() throws {
        let server = try TestServer()
        let client = try server.client()
        try client.send(
            "POST /v1/conversations/ab/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer alice-token\r\nContent-Length: 10\r\n\r\n"
                + Self.validBody + "\r\n\r\n")
        #expect(try client.readResponse().status == 400)
        #expect(try client.readResponse().status == 400)
        #expect(client.closes())
    }

    @Test("a Content-Length longer than the body: 408 once the request timeout passes, then close")
    func longContentLength() throws {
        let server = try TestServer { $0.requestTimeoutMilliseconds = 500 }
        let client = try server.client()
        try client.send(
            "POST /v1/conversations/ab/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer alice-token\r\nContent-Length: 500\r\n\r\n"
                + Self.validBody)
        #expect(try client.readResponse().status == 408)
        #expect(client.closes())
    }

    @Test("a body that is not UTF-8 is 400")
    func invalidUTF8() throws {
        let server = try TestServer()
        let client = try server.client()
        var body = Array(#"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","text":"caf"#.utf8)
        body += [0xE9, 0xFF] + Array(#""}"#.utf8)
        try client.send(
            Array(
                "POST /v1/conversations/ab/messages HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer alice-token\r\nContent-Length: \(body.count)\r\n\r\n"
                    .utf8) + body)
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(response.json["error"].string?.contains("UTF-8") == true, "\(response.text)")
    }

    @Test(
        "a slow client sending a byte at a time gets 408 at the request deadline while another client is served at once"
    )
    func slowLoris() throws {
        // The deadline is generous so that, even on a loaded machine, the other client is
        // answered long before it: a server that served one connection at a time would make
        // the other client wait for the slow one's 408.
        let deadline = 5000
        let server = try TestServer { $0.requestTimeoutMilliseconds = deadline }
        let slow = try server.client()
        let request = Array("GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer alice-token\r\n\r\n".utf8)
        let started = Clock.monotonicMilliseconds()
        try slow.send([request[0]])
        let other = try server.client()
        let response = try other.request("GET", "/v1/me", token: TestData.token("bob"))
        #expect(response.status == 200)
        #expect(slow.hasReceivedNothing(), "the slow client was answered before the other one was served")
        var sent = 1
        while sent < request.count && Clock.monotonicMilliseconds() - started < deadline - 500 {
            try slow.send([request[sent]])
            sent += 1
            // The pause is the thing tested: a client that keeps sending, a byte at a time, too
            // slowly to finish before the deadline (no event stands for "slow").
            SystemThread.sleep(milliseconds: 250)
        }
        #expect(sent < request.count)
        let timedOut = try slow.readResponse()
        #expect(timedOut.status == 408)
        #expect(Clock.monotonicMilliseconds() - started >= deadline)
        #expect(slow.closes())
    }

    @Test("an idle keep-alive connection is closed after the idle timeout")
    func idleConnection() throws {
        let server = try TestServer { $0.idleTimeoutMilliseconds = 300 }
        let client = try server.client()
        #expect(try client.request("GET", "/v1/me").status == 200)
        #expect(client.closes(withinMilliseconds: 5000))
    }
}
