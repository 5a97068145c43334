import ChatWire
import Testing

/// Chunked bodies (as Synapse sends its JSON): whole, split at every byte, and malformed.
@Suite struct ChunkedBodyDecoderTests {
    static let body = Array(
        "4\r\nWiki\r\n6;ext=1\r\npedia \r\nE\r\nin \r\n\r\nchunks.\r\n0\r\nX-Trailer: 1\r\n\r\n".utf8)

    @Test("a body fed whole or a byte at a time decodes the same, and nothing after it is taken")
    func decodes() throws {
        var whole = ChunkedBodyDecoder(maxBodySize: 100)
        #expect(try whole.feed((Self.body + Array("HTTP".utf8))[...]) == Array("HTTP".utf8)[...])
        #expect(whole.isComplete && String(decoding: whole.body, as: UTF8.self) == "Wikipedia in \r\n\r\nchunks.")
        var bytewise = ChunkedBodyDecoder(maxBodySize: 100)
        for byte in Self.body { #expect(try bytewise.feed([byte][...]).isEmpty) }
        #expect(bytewise.isComplete && bytewise.body == whole.body)
    }

    @Test(
        "malformed or oversized bodies are refused",
        arguments: [
            ("g\r\n", "a malformed chunked body: a chunk size is not hexadecimal"),
            ("\r\n", "a malformed chunked body: a chunk size is missing"),
            ("3\r\nabcX", "a malformed chunked body: a chunk's data is not followed by CRLF"),
            ("3\nabc", "a malformed chunked body: a line ends in LF without CR"),
            ("65\r\n", "a chunked answer over the 100-byte limit"),
            ("ffffffffffffffffffffffff\r\n", "a chunked answer over the 100-byte limit"),
            ("3;" + String(repeating: "x", count: 5000), "a malformed chunked body: a line longer than 4096 bytes"),
        ])
    func refused(input: String, expected: String) {
        var decoder = ChunkedBodyDecoder(maxBodySize: 100)
        do {
            _ = try decoder.feed(Array(input.utf8)[...])
            Issue.record("accepted")
        } catch {
            #expect(error.description == expected)
        }
    }

    @Test("the limit counts every chunk together")
    func limitAcrossChunks() throws {
        var decoder = ChunkedBodyDecoder(maxBodySize: 5)
        _ = try decoder.feed(Array("3\r\nabc\r\n".utf8)[...])
        #expect(throws: ChunkedBodyDecoder.Failure.tooLarge(limit: 5)) {
            _ = try decoder.feed(Array("3\r\n".utf8)[...])
        }
    }
}
