import ChatTestSupport
import Testing

@testable import ChatWire

@Suite(.ownThreads) struct HTTPResponseHeadParserTests {
    /// Parses `input` fed all at once and a byte at a time, expects both to agree, and returns the result.
    private func parse(
        _ input: [UInt8],
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> Result<(head: HTTPResponseHead, remainder: [UInt8])?, HTTPParseError> {
        func run(_ chunks: [[UInt8]]) -> Result<(head: HTTPResponseHead, remainder: [UInt8])?, HTTPParseError> {
            var parser = HTTPResponseHeadParser()
            do {
                for (index, chunk) in chunks.enumerated() {
                    parser.feed(chunk)
                    if let parsed = try parser.parse() {
                        // Bytes read after the head are the caller's to append to the remainder.
                        return .success((parsed.head, parsed.remainder + chunks[(index + 1)...].joined()))
                    }
                }
                return .success(nil)
            } catch {
                return .failure(error)
            }
        }
        let whole = run([input])
        let byteByByte = run(input.map { [$0] })
        #expect(
            String(describing: whole) == String(describing: byteByByte), "feeding byte by byte changed the result",
            sourceLocation: sourceLocation)
        return whole
    }

    @Test("A 101 head is read, and the frame bytes behind it are handed back")
    func switchingProtocols() throws {
        let input =
            Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n".utf8) + [
                0x81, 0x02, 0x68, 0x69,
            ]
        let parsed = try #require(try parse(input).get())
        #expect(
            parsed.head
                == HTTPResponseHead(
                    status: HTTPStatus(code: 101, reasonPhrase: "Switching Protocols"),
                    headers: ["Upgrade": "websocket", "Connection": "Upgrade"]
                ))
        #expect(parsed.remainder == [0x81, 0x02, 0x68, 0x69])
    }

    @Test(
        "The reason phrase is kept as sent and may be empty or missing",
        arguments: [
            ("HTTP/1.1 401 Go Away\r\n\r\n", "Go Away"),
            ("HTTP/1.1 401 \r\n\r\n", ""),
            ("HTTP/1.1 401\r\n\r\n", ""),
        ])
    func reasonPhrase(input: String, reason: String) throws {
        let parsed = try #require(try parse(Array(input.utf8)).get())
        #expect(parsed.head.status.code == 401)
        #expect(parsed.head.status.reasonPhrase == reason)
    }

    @Test("An incomplete head gives nothing yet")
    func incomplete() throws {
        #expect(try parse(Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n".utf8)).get() == nil)
    }

    @Test(
        "Malformed status lines are rejected with the line quoted",
        arguments: [
            "HTTP/1.1 1O1 Switching\r\n\r\n",
            "HTTP/1.1  101 Switching\r\n\r\n",
            "HTTP/1.1 1011\r\n\r\n",
            "HTTP/1.1 099 Low\r\n\r\n",
            "HTTP/1 101 Switching\r\n\r\n",
            "ICY 200 OK\r\n\r\n",
            "HTTP/1.1 200 O\u{01}K\r\n\r\n",
        ])
    func malformed(input: String) {
        let line = String(input.utf8.prefix { $0 != UInt8(ascii: "\r") }) ?? ""
        let expected = HTTPParseError.malformedStatusLine(Array(line.utf8))
        guard case .failure(let error) = parse(Array(input.utf8)) else {
            Issue.record("accepted \(input)")
            return
        }
        #expect(error == expected)
    }

    @Test("Header lines follow the same rules as in requests")
    func badHeader() {
        guard case .failure(let error) = parse(Array("HTTP/1.1 101 OK\r\nUpgrade websocket\r\n\r\n".utf8)) else {
            Issue.record("accepted a header without colon")
            return
        }
        #expect(error.message == #"line 2 "Upgrade websocket" has no colon; write headers as "Name: value""#)
    }
}
