import ChatTestSupport
import Testing

@testable import ChatWire

@Suite(.ownThreads) struct HTTPResponseTests {
    @Test("A response is written with its status line, headers in order, Content-Length and body")
    func serialize() throws {
        let response = HTTPResponse(
            status: .notFound,
            headers: ["Content-Type": "application/json", "Content-Length": "999"],
            body: Array(#"{"error":"no conversation c9"}"#.utf8)
        )
        let expected =
            "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 30\r\n\r\n"
            + #"{"error":"no conversation c9"}"#
        #expect(String(decoding: try response.serialized(), as: UTF8.self) == expected)
    }

    @Test(
        "1xx and 204 responses carry no Content-Length and no body",
        arguments: [
            (HTTPStatus.switchingProtocols, "HTTP/1.1 101 Switching Protocols\r\nX-A: 1\r\n\r\n"),
            (HTTPStatus.noContent, "HTTP/1.1 204 No Content\r\nX-A: 1\r\n\r\n"),
        ])
    func bodiless(status: HTTPStatus, expected: String) throws {
        let response = HTTPResponse(status: status, headers: ["X-A": "1", "Content-Length": "2"], body: [1, 2])
        #expect(String(decoding: try response.serialized(), as: UTF8.self) == expected)
    }

    @Test(
        "Statuses know their standard reason phrase; unknown codes have none",
        arguments: [
            (413, "413 Content Too Large"), (426, "426 Upgrade Required"), (431, "431 Request Header Fields Too Large"),
            (599, "599"),
        ])
    func reasonPhrases(code: Int, description: String) {
        #expect(HTTPStatus(code: code).description == description)
    }
}
