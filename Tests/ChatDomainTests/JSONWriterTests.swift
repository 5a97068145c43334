import ChatDomain
import ChatTestSupport
import Testing

@Suite(.ownThreads) struct JSONWriterTests {
    @Test(
        "terminal-safe JSON escapes every C0 control, DEL, C1 and the bidi overrides, and keeps the rest as UTF-8",
        arguments: [
            ("plain é 👋", "\"plain é 👋\""),
            ("q\"b\\", "\"q\\\"b\\\\\""),
            ("\n\r\t", "\"\\n\\r\\t\""),
            ("\u{00}\u{1B}\u{1F}", "\"\\u0000\\u001b\\u001f\""),
            ("\u{7F}", "\"\\u007f\""),
            ("\u{80}\u{9B}\u{9F}", "\"\\u0080\\u009b\\u009f\""),
            ("\u{202A}\u{202E}\u{2066}\u{2069}", "\"\\u202a\\u202e\\u2066\\u2069\""),
            ("\u{A0}\u{2065}\u{206A}", "\"\u{A0}\u{2065}\u{206A}\""),
        ])
    func terminalSafe(_ text: String, _ json: String) throws {
        let bytes = JSONWriter.encode(.string(text), escaping: .terminalSafe)
        #expect(String(decoding: bytes, as: UTF8.self) == json)
        #expect(try JSONParser.parse(bytes) == .string(text), "the exact text comes back")
    }

    @Test("the store's canonical form is unchanged: DEL, C1 and bidi characters stay raw UTF-8")
    func canonical() {
        let text = "\u{7F}\u{9B}\u{202E}\u{1B}"
        #expect(JSONWriter.encode(.string(text)) == Array("\"\u{7F}\u{9B}\u{202E}\\u001b\"".utf8))
    }

    @Test(
        "canonical strings: every byte that needs an escape, alone, at either end and between runs, escaped as JSON requires and parsed back",
        arguments: [
            "", "plain", "\"", "\\", "a\"b", "\"a\\", "\n\r\t\u{08}\u{0C}", "\u{00}x\u{1F}", "é\u{01}👋\u{1B}z",
            String(repeating: "ab\"", count: 300), "\u{7F}/\u{9B}",
        ])
    func canonicalEscapes(_ text: String) throws {
        let bytes = JSONWriter.encode(.string(text))
        #expect(bytes == Self.escapedByteByByte(text))
        #expect(try JSONParser.parse(bytes) == .string(text), "the exact text comes back")
    }

    /// The canonical escaping written the plain way, a byte at a time: what the writer's
    /// run-copying must match.
    static func escapedByteByByte(_ text: String) -> [UInt8] {
        var out: [UInt8] = [0x22]
        let hex = Array("0123456789abcdef".utf8)
        for byte in text.utf8 {
            switch byte {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += Array("\\n".utf8)
            case 0x0D: out += Array("\\r".utf8)
            case 0x09: out += Array("\\t".utf8)
            case 0x08: out += Array("\\b".utf8)
            case 0x0C: out += Array("\\f".utf8)
            case 0x00..<0x20: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        return out + [0x22]
    }
}
