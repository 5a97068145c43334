import ChatTestSupport
import Testing

@testable import ChatWire

/// The serializer never writes a CR, LF or NUL inside a head line: one in a header would start
/// a header of its own (header injection).
@Suite(.ownThreads) struct HTTPHeadTests {
    static let breakers = ["\r\n", "\r", "\n", "\u{0}"]

    @Test("a header value with CR, LF or NUL is refused, naming the header but not the value", arguments: breakers)
    func valueRefused(_ breaker: String) {
        let request = HTTPRequest(
            method: "GET", target: HTTPRequestTarget("/v1/me"),
            headers: ["Host": "h", "Authorization": "Bearer abc\(breaker)X-Injected: 1"])
        do {
            let bytes = try request.serialized()
            Issue.record("serialized: \(String(decoding: bytes, as: UTF8.self))")
        } catch {
            #expect(error == .controlInValue(name: "Authorization"))
            #expect(error.message.contains("\"Authorization\" contains CR, LF or NUL"))
            #expect(!error.message.contains("abc") && !error.message.contains("X-Injected"))
        }
    }

    @Test("a header name with CR, LF or NUL is refused", arguments: breakers)
    func nameRefused(_ breaker: String) {
        let response = HTTPResponse(status: .ok, headers: ["X-A\(breaker)X-Injected": "1"])
        #expect(throws: HTTPHeaderError.controlInName("X-A\(breaker)X-Injected")) { try response.serialized() }
    }

    @Test("a target with a line break is refused")
    func targetRefused() {
        let request = HTTPRequest(
            method: "GET", target: HTTPRequestTarget("/v1/me HTTP/1.1\r\nX-Injected: 1\r\n\r\nGET /"))
        #expect(throws: HTTPHeaderError.controlInStartLine()) { try request.serialized() }
    }

    @Test("tabs and non-ASCII bytes in a value are written as they are")
    func otherBytesKept() throws {
        let request = HTTPRequest(
            method: "GET", target: HTTPRequestTarget("/"), headers: ["Host": "h", "X-Note": "a\tb é"])
        #expect(
            String(decoding: try request.serialized(), as: UTF8.self)
                == "GET / HTTP/1.1\r\nHost: h\r\nX-Note: a\tb é\r\n\r\n")
    }
}
