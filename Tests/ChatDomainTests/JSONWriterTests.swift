import ChatDomain
import Testing
import ChatTestSupport

@Suite(.ownThreads) struct JSONWriterTests {
    @Test("terminal-safe JSON escapes every C0 control, DEL, C1 and the bidi overrides, and keeps the rest as UTF-8", arguments: [
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
}
