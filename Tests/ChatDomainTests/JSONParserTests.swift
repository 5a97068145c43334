import ChatTestSupport
import Testing

@testable import ChatDomain

@Suite(.ownThreads) struct JSONParserTests {
    @Test(
        "valid JSON parses",
        arguments: [
            ("{}", JSONValue.object([])),
            ("[1,-2,3.5]", .array([.integer(1), .integer(-2), .number(3.5)])),
            (#"{"a":"x\"\\\/\n\u00e9\ud83d\ude00"}"#, .object([("a", .string("x\"\\/\né😀"))])),
            (" true ", .bool(true)),
            ("null", .null),
            ("1e3", .number(1000)),
        ])
    func parses(_ text: String, expected: JSONValue) throws {
        #expect(try JSONParser.parse(text) == expected)
    }

    @Test(
        "invalid JSON is rejected with a reason",
        arguments: [
            ("", "unexpected end of input; a value was expected"),
            ("{\"a\":1,}", "unexpected '}'; a key in double quotes was expected"),
            ("[1,]", "unexpected ']'; a value was expected"),
            ("{\"a\":1,\"a\":2}", "the key \"a\" appears twice in one object"),
            ("01", "numbers may not have leading zeros"),
            ("\"\\ud800\"", "a high surrogate must be followed by a low surrogate"),
            ("\"a\u{1}\"", "a control character (0x1) must be escaped inside a string"),
            ("{\"a\":1} x", "unexpected 'x' after the value"),
            ("\"\\x\"", "invalid escape '\\x'"),
            ("tru", "unexpected 't'; a value was expected"),
        ])
    func rejects(_ text: String, reason: String) {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(text) }
        do { _ = try JSONParser.parse(text) } catch { #expect(error.reason == reason) }
    }

    @Test("invalid UTF-8 inside a string is rejected")
    func invalidUTF8() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse([0x22, 0xC3, 0x28, 0x22]) }
    }

    @Test("nesting is limited so a hostile file cannot exhaust the stack")
    func depth() {
        #expect(throws: JSONParser.Failure.self) { try JSONParser.parse(String(repeating: "[", count: 10_000)) }
    }

    @Test(
        "the writer escapes minimally and round-trips",
        arguments: [
            "plain", "quote \" backslash \\ slash /", "tab\tnewline\ncr\r", "\u{1}\u{1F}", "émoji 😀 ☕", "",
        ])
    func roundTrip(_ text: String) throws {
        let bytes = JSONWriter.encode(.string(text))
        #expect(try JSONParser.parse(bytes) == .string(text))
        #expect(!bytes.contains(0x0A))
    }

    @Test("canonical bytes of a string are fixed")
    func canonical() {
        #expect(String(decoding: JSONWriter.encode(.string("a/\"\n\u{1}é")), as: UTF8.self) == #""a/\"\n\u0001é""#)
    }
}
