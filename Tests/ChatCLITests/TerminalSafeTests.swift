import ChatTestSupport
import Testing

@testable import ChatCLI

@Suite(.ownThreads) struct TerminalSafeTests {
    @Test(
        "outside text is shown with controls, DEL, C1 and bidi overrides made visible, everything else kept",
        arguments: [
            ("plain text, émoji 👋 and 中文", "plain text, émoji 👋 and 中文"),
            ("line one\nline two\tafter a tab", "line one\nline two\tafter a tab"),
            ("\u{1B}]52;c;aGVsbG8=\u{07}", "^[]52;c;aGVsbG8=^G"),
            ("\u{1B}[2J\u{1B}[31mred", "^[[2J^[[31mred"),
            ("nul \u{00} bs \u{08} cr \r esc \u{1B} us \u{1F}", "nul ^@ bs ^H cr ^M esc ^[ us ^_"),
            ("del \u{7F}", "del ^?"),
            (
                "csi \u{9B}2J, nel \u{85}, first C1 \u{80}, last \u{9F}",
                "csi \\u{9b}2J, nel \\u{85}, first C1 \\u{80}, last \\u{9f}"
            ),
            ("\u{202A}\u{202B}\u{202C}\u{202D}\u{202E}", "\\u{202a}\\u{202b}\\u{202c}\\u{202d}\\u{202e}"),
            ("\u{2066}\u{2067}\u{2068}\u{2069}", "\\u{2066}\\u{2067}\\u{2068}\\u{2069}"),
            ("kept: \u{A0}nbsp \u{2065} \u{206A} \u{2029}", "kept: \u{A0}nbsp \u{2065} \u{206A} \u{2029}"),
            ("\r\n", "^M\n"),
            // Printable ASCII takes a shorter path; one control anywhere still takes the long one.
            ("", ""),
            (" !\"#$%&'()*+,-./0123456789:;<=>?@AZ[\\]^_`az{|}~", " !\"#$%&'()*+,-./0123456789:;<=>?@AZ[\\]^_`az{|}~"),
            ("ascii until the last byte\u{1B}", "ascii until the last byte^["),
            ("\u{7F}", "^?"),
            ("\u{1F} first", "^_ first"),
        ])
    func visible(_ text: String, _ shown: String) {
        #expect(TerminalSafe.visible(text) == shown)
    }

    @Test("on a terminal each notation is passed through the mark (dim), the rest is not")
    func marked() {
        #expect(TerminalSafe.visible("a\u{1B}b\u{9B}c", mark: { "<" + $0 + ">" }) == "a<^[>b<\\u{9b}>c")
        #expect(TerminalSafe.visible("plain", mark: { "<" + $0 + ">" }) == "plain")
    }

    @Test("a frame of view --follow with colour on carries no escape sequence but its own styles")
    func frame() throws {
        var output = Output(environment: ["TERM": "xterm"])
        output.useColor = true
        let hostile = "x\u{1B}]52;c;eA==\u{07}\u{9B}2J\u{202E}"
        let rows = [
            RowState(
                clientMessageID: .random(), sequence: 1, time: hostile, senderID: try .init("bob"), text: hostile,
                status: .incoming),
            RowState(
                clientMessageID: .random(), sequence: nil, time: "10:00", senderID: try .init("alice"), text: hostile,
                status: .failed(reason: hostile)),
        ]
        let view = ConversationViewState(
            title: hostile, subtitle: "c1 · bob", rows: rows, totalRows: 2, history: .complete, status: hostile,
            problems: [hostile])
        let lines = ConversationScreen(output: output, conversation: try .init("c1")).frame(
            view, rows: 10, columns: 200)
        for line in lines {
            #expect(
                !withoutStyles(line).unicodeScalars.contains { TerminalSafe.isUnsafe($0) }, "\(line.debugDescription)")
        }
    }

    /// `line` without the SGR sequences `ESC [ digits m` that ``Output/styled(_:_:)`` writes.
    func withoutStyles(_ line: String) -> String {
        var scalars = Array(line.unicodeScalars)
        var index = 0
        while index < scalars.count {
            if scalars[index] == "\u{1B}", index + 1 < scalars.count, scalars[index + 1] == "[" {
                var end = index + 2
                while end < scalars.count, ("0"..."9").contains(scalars[end]) { end += 1 }
                if end < scalars.count, end > index + 2, scalars[end] == "m" {
                    scalars.removeSubrange(index...end)
                    continue
                }
            }
            index += 1
        }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars)
        return String(out)
    }
}
