import ChatTestSupport
import Testing

@testable import ChatWire

/// What a parser made of some input: the requests in order, then the error that stopped it, if any.
struct RequestParseOutcome: Equatable {
    var requests: [HTTPRequest] = []
    var error: HTTPParseError?
}

/// Parses `input` fed all at once and fed a byte at a time, expects both to agree, and returns the outcome.
func parseRequests(
    _ input: String,
    parser: HTTPRequestParser = HTTPRequestParser(),
    sourceLocation: SourceLocation = #_sourceLocation
) -> RequestParseOutcome {
    let bytes = Array(input.utf8)
    let whole = parseRequests(chunks: [bytes], parser: parser)
    let byteByByte = parseRequests(chunks: bytes.map { [$0] }, parser: parser)
    #expect(whole == byteByByte, "feeding byte by byte changed the result", sourceLocation: sourceLocation)
    return whole
}

private func parseRequests(chunks: [[UInt8]], parser: HTTPRequestParser) -> RequestParseOutcome {
    var parser = parser
    var outcome = RequestParseOutcome()
    do {
        for chunk in chunks {
            parser.feed(chunk)
            while let request = try parser.nextRequest() {
                outcome.requests.append(request)
            }
        }
    } catch {
        outcome.error = error
    }
    return outcome
}

@Suite(.ownThreads) struct HTTPRequestParserTests {
    @Test("A GET request yields its method, target, version and headers in order")
    func simpleGet() {
        let outcome = parseRequests(
            "GET /v1/me?x=1 HTTP/1.1\r\nHost: chat.example\r\nAuthorization: Bearer t0k\r\n\r\n")
        #expect(outcome.error == nil)
        #expect(
            outcome.requests == [
                HTTPRequest(
                    method: "GET",
                    target: HTTPRequestTarget(path: "/v1/me", query: "x=1"),
                    headers: ["Host": "chat.example", "Authorization": "Bearer t0k"]
                )
            ])
    }

    @Test("Header values lose surrounding spaces and tabs but keep inner ones")
    func headerWhitespace() {
        let outcome = parseRequests("GET / HTTP/1.1\r\nHost:chat\r\nX-Note: \t two  words \t\r\nX-Empty:\r\n\r\n")
        let headers = outcome.requests.first?.headers
        #expect(headers?["Host"] == "chat")
        #expect(headers?["X-Note"] == "two  words")
        #expect(headers?["X-Empty"] == "")
    }

    @Test("A Content-Length body is read exactly, and nothing comes out before it is complete")
    func body() {
        var parser = HTTPRequestParser()
        parser.feed(Array("POST /m HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello".utf8))
        #expect((try? parser.nextRequest()) == .some(nil))
        parser.feed(Array(" world".utf8))
        #expect((try? parser.nextRequest())??.body == Array("hello world".utf8))
    }

    @Test("Pipelined requests in one read come out in order, a stray CRLF between them is skipped")
    func pipelined() {
        let outcome = parseRequests(
            "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
                + "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc\r\n"
                + "GET /c HTTP/1.1\r\nHost: h\r\n\r\n"
        )
        #expect(outcome.error == nil)
        #expect(outcome.requests.map(\.target.path) == ["/a", "/b", "/c"])
        #expect(outcome.requests.map(\.body) == [[], Array("abc".utf8), []])
    }

    @Test("Repeated Content-Length fields that agree are accepted")
    func agreeingContentLengths() {
        let outcome = parseRequests("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nContent-Length: 2, 2\r\n\r\nok")
        #expect(outcome.error == nil)
        #expect(outcome.requests.first?.body == Array("ok".utf8))
    }

    @Test(
        "Keep-alive follows the version and the Connection tokens",
        arguments: [
            ("HTTP/1.1", nil, true),
            ("HTTP/1.1", "close", false),
            ("HTTP/1.1", "Upgrade, Close", false),
            ("HTTP/1.1", "keep-alive", true),
            ("HTTP/1.0", nil, false),
            ("HTTP/1.0", "Keep-Alive", true),
            ("HTTP/1.0", "close", false),
        ] as [(String, String?, Bool)])
    func keepAlive(version: String, connection: String?, keepAlive: Bool) {
        let connectionLine = connection.map { "Connection: \($0)\r\n" } ?? ""
        let outcome = parseRequests("GET / \(version)\r\nHost: h\r\n\(connectionLine)\r\n")
        #expect(outcome.requests.first?.keepAlive == keepAlive)
    }

    @Test("The target splits into decoded path segments and query items")
    func target() {
        let outcome = parseRequests(
            "GET /v1/conversations/c%201/messages?after=417&limit=50&flag&q=a%2Bb+c%zz HTTP/1.1\r\nHost: h\r\n\r\n")
        let target = outcome.requests.first?.target
        #expect(target?.pathSegments == ["v1", "conversations", "c 1", "messages"])
        #expect(
            target?.queryItems == [
                HTTPQueryItem(name: "after", value: "417"),
                HTTPQueryItem(name: "limit", value: "50"),
                HTTPQueryItem(name: "flag", value: nil),
                HTTPQueryItem(name: "q", value: "a+b+c%zz"),
            ])
        #expect(target?.queryValue("limit") == "50")
        #expect(target?.queryValue("before") == nil)
    }

    @Test(
        "Percent-decoding reads UTF-8 and leaves broken escapes alone",
        arguments: [
            ("caf%C3%A9", "café"),
            ("100%", "100%"),
            ("%4", "%4"),
            ("%g1", "%g1"),
            ("%FF", "\u{FFFD}"),
            ("a%20b", "a b"),
        ])
    func percentDecode(encoded: String, decoded: String) {
        #expect(HTTPRequestTarget.percentDecode(encoded) == decoded)
    }

    @Test("A serialized request parses back to itself")
    func roundTrip() throws {
        let request = HTTPRequest(
            method: "POST",
            target: HTTPRequestTarget("/v1/conversations/c1/messages?x=%20"),
            headers: ["Host": "h", "Content-Type": "application/json"],
            body: Array(#"{"text":"hi"}"#.utf8)
        )
        var expected = request
        expected.headers.add(name: "Content-Length", value: "13")
        #expect(parseRequests(String(decoding: try request.serialized(), as: UTF8.self)).requests == [expected])
    }

    @Test("Bytes after a request are handed over untouched, as after a WebSocket upgrade")
    func unparsedBytes() throws {
        var parser = HTTPRequestParser()
        parser.feed(Array("GET /v1/live HTTP/1.1\r\nHost: h\r\n\r\n".utf8) + [0x81, 0x00])
        #expect(try parser.nextRequest()?.target.path == "/v1/live")
        #expect(parser.takeUnparsedBytes() == [0x81, 0x00])
    }

    @Test("Limits can be lowered: the head and body limits include their last byte")
    func customLimits() {
        let head = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\n"
        let limits = HTTPRequestParser(maxHeadSize: head.utf8.count, maxBodySize: 4)
        #expect(parseRequests(head + "body", parser: limits).requests.count == 1)
        let tighter = HTTPRequestParser(maxHeadSize: head.utf8.count - 1, maxBodySize: 4)
        #expect(parseRequests(head + "body", parser: tighter).error?.status.code == 431)
        #expect(parseRequests(head + "body", parser: HTTPRequestParser(maxBodySize: 3)).error?.status.code == 413)
    }

    @Test("After an error every call throws it again")
    func stickyError() {
        var parser = HTTPRequestParser()
        parser.feed(Array("BAD\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n".utf8))
        let first = #expect(throws: HTTPParseError.self) { try parser.nextRequest() }
        let second = #expect(throws: HTTPParseError.self) { try parser.nextRequest() }
        #expect(first == second)
    }

    static let host = "Host: h\r\n"

    @Test(
        "Malformed requests fail with the status to answer and a message saying what is wrong",
        arguments: [
            (
                "GET  / HTTP/1.1\r\n\(host)\r\n", 400,
                #"request line "GET  / HTTP/1.1" is not "METHOD /path HTTP/1.1" with single spaces"#
            ),
            ("GET /\r\n\(host)\r\n", 400, #"request line "GET /" is not "METHOD /path HTTP/1.1" with single spaces"#),
            (
                "GET / HTTP/1.1 x\r\n\(host)\r\n", 400,
                #"request line "GET / HTTP/1.1 x" is not "METHOD /path HTTP/1.1" with single spaces"#
            ),
            (
                "G(T / HTTP/1.1\r\n\(host)\r\n", 400,
                #"request line "G(T / HTTP/1.1" is not "METHOD /path HTTP/1.1" with single spaces"#
            ),
            (
                "GET /\u{7F} HTTP/1.1\r\n\(host)\r\n", 400,
                #"request line "GET /\x7F HTTP/1.1" is not "METHOD /path HTTP/1.1" with single spaces"#
            ),
            (
                "GET / HTTPS/1.1\r\n\(host)\r\n", 400,
                #"request line "GET / HTTPS/1.1" is not "METHOD /path HTTP/1.1" with single spaces"#
            ),
            ("GET / HTTP/2.0\r\n\(host)\r\n", 505, "HTTP/2.0 is not supported; use HTTP/1.1 or HTTP/1.0"),
            (
                "GET http://h/ HTTP/1.1\r\n\(host)\r\n", 400,
                #"request target "http://h/" does not start with "/"; send the path and query only"#
            ),
            ("GET / HTTP/1.1\nHost: h\n\n", 400, "line 1 of the head ends in LF without CR; end every line with CRLF"),
            (
                "GET / HTTP/1.1\r\nHost: h\n\r\n", 400,
                "line 2 of the head ends in LF without CR; end every line with CRLF"
            ),
            (
                "GET / HTTP/1.1\r\n\(host)X-A a\r\n\r\n", 400,
                #"line 3 "X-A a" has no colon; write headers as "Name: value""#
            ),
            (
                "GET / HTTP/1.1\r\n\(host)X-A : a\r\n\r\n", 400,
                #"line 3 "X-A : a" has whitespace between the header name and the colon; remove it"#
            ),
            (
                "GET / HTTP/1.1\r\n\(host)X-A: a\r\n b\r\n\r\n", 400,
                #"line 4 " b" starts with whitespace (obsolete line folding); put each header on one line"#
            ),
            (
                "GET / HTTP/1.1\r\n\(host)X(A): a\r\n\r\n", 400,
                #"line 3 "X(A): a" has a header name that is empty or not a token; use letters, digits and !#$%&'*+-.^_`|~"#
            ),
            (
                "GET / HTTP/1.1\r\n\(host): a\r\n\r\n", 400,
                #"line 3 ": a" has a header name that is empty or not a token; use letters, digits and !#$%&'*+-.^_`|~"#
            ),
            (
                "GET / HTTP/1.1\r\n\(host)X-A: a\u{01}b\r\n\r\n", 400,
                #"line 3 "X-A: a\x01b" has a control character in the header value; remove it"#
            ),
            (
                "GET / HTTP/1.1\r\n\(host)X-A: a\rb\r\n\r\n", 400,
                #"line 3 "X-A: a\x0Db" has a control character in the header value; remove it"#
            ),
            ("GET / HTTP/1.1\r\n\r\n", 400, "an HTTP/1.1 request needs exactly one Host header, this one has 0"),
            (
                "GET / HTTP/1.1\r\n\(host)\(host)\r\n", 400,
                "an HTTP/1.1 request needs exactly one Host header, this one has 2"
            ),
            (
                "POST / HTTP/1.1\r\n\(host)Transfer-Encoding: chunked\r\n\r\n", 501,
                #"Transfer-Encoding "chunked" is not supported; send the body with Content-Length"#
            ),
            (
                "POST / HTTP/1.1\r\n\(host)Content-Length: abc\r\n\r\n", 400,
                #"Content-Length "abc" is not a decimal number of bytes"#
            ),
            (
                "POST / HTTP/1.1\r\n\(host)Content-Length: -1\r\n\r\n", 400,
                #"Content-Length "-1" is not a decimal number of bytes"#
            ),
            (
                "POST / HTTP/1.1\r\n\(host)Content-Length: +1\r\n\r\n", 400,
                #"Content-Length "+1" is not a decimal number of bytes"#
            ),
            (
                "POST / HTTP/1.1\r\n\(host)Content-Length:\r\n\r\n", 400,
                #"Content-Length "" is not a decimal number of bytes"#
            ),
            (
                "POST / HTTP/1.1\r\n\(host)Content-Length: 1 2\r\n\r\n", 400,
                #"Content-Length "1 2" is not a decimal number of bytes"#
            ),
            (
                "POST / HTTP/1.1\r\n\(host)Content-Length: 1,\r\n\r\n", 400,
                #"Content-Length "" is not a decimal number of bytes"#
            ),
            (
                "POST / HTTP/1.1\r\n\(host)Content-Length: 5\r\nContent-Length: 6\r\n\r\n", 400,
                #"Content-Length has different values "5", "6"; send it once"#
            ),
            (
                "POST / HTTP/1.1\r\n\(host)Content-Length: 5, 05\r\n\r\n", 400,
                #"Content-Length has different values "5", "05"; send it once"#
            ),
            (
                "POST / HTTP/1.1\r\n\(host)Content-Length: 1048577\r\n\r\n", 413,
                "body of 1048577 bytes exceeds the limit of 1048576 bytes; send a smaller body"
            ),
            (
                "POST / HTTP/1.1\r\n\(host)Content-Length: 99999999999999999999999\r\n\r\n", 413,
                "body of 99999999999999999999999 bytes exceeds the limit of 1048576 bytes; send a smaller body"
            ),
            (
                "GET / HTTP/1.1\r\n\(host)X-Big: \(String(repeating: "x", count: 16 * 1024))\r\n\r\n", 431,
                "the head (start line and headers) exceeds 16384 bytes; send fewer or shorter headers"
            ),
            (
                "GET / HTTP/1.1\r\n\(host)X-Endless: \(String(repeating: "x", count: 16 * 1024))", 431,
                "the head (start line and headers) exceeds 16384 bytes; send fewer or shorter headers"
            ),
        ])
    func errors(input: String, status: Int, message: String) {
        let outcome = parseRequests(input)
        #expect(outcome.requests.isEmpty)
        #expect(outcome.error?.status.code == status)
        #expect(outcome.error?.message == message)
    }

    @Test("A request with the largest allowed body is accepted without waiting for more")
    func largestBody() {
        let body = String(repeating: "b", count: HTTPRequestParser.defaultMaxBodySize)
        var parser = HTTPRequestParser()
        parser.feed(Array("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8))
        #expect((try? parser.nextRequest())??.body.count == body.utf8.count)
    }
}
