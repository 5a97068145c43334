import ChatDomain
import Testing

@testable import ChatCLI

/// Word wrap by cells, and rows wrapped under their text column with the tick last.
@Suite struct TextWrapTests {
    @Test(
        "text wraps on spaces by cells; long words break; newlines start lines; no line is wider than the width",
        arguments: [
            ("", 10, [""]),
            ("hello", 5, ["hello"]),
            ("hello world", 11, ["hello world"]),
            ("hello world", 10, ["hello", "world"]),
            ("hello world", 5, ["hello", "world"]),
            ("a b c d e f", 3, ["a b", "c d", "e f"]),
            ("abcdefghij", 4, ["abcd", "efgh", "ij"]),
            ("see abcdefghij ok", 4, ["see", "abcd", "efgh", "ij", "ok"]),
            ("a  b   c", 10, ["a  b   c"]),
            ("aaa     bbb", 5, ["aaa", "bbb"]),
            ("  indented", 20, ["  indented"]),
            ("one\ntwo", 20, ["one", "two"]),
            ("one\n\nthree", 20, ["one", "", "three"]),
            ("end\n", 20, ["end", ""]),
            ("tab\there", 20, ["tab here"]),
            ("漢字かな", 4, ["漢字", "かな"]),
            ("漢字かな", 5, ["漢字", "かな"]),
            ("ab 漢字", 5, ["ab", "漢字"]),
            ("a漢字", 2, ["a", "漢", "字"]),
            ("漢", 1, ["…"]),
            ("😀 👍🏽 🇫🇷", 5, ["😀 👍🏽", "🇫🇷"]),
            ("e\u{301}e\u{301}e\u{301}", 2, ["e\u{301}e\u{301}", "e\u{301}"]),
            ("xy", 0, ["x", "y"]),
            ("trailing  ", 9, ["trailing "]),
        ])
    func wrap(_ text: String, _ width: Int, _ expected: [String]) {
        let lines = TextWrap.lines(text, width: width)
        #expect(lines == expected)
        #expect(lines.allSatisfy { TerminalCells.width($0) <= max(1, width) })
    }

    @Test("a style open where a line breaks is closed at its end and opened again on the next line")
    func stylesCarried() {
        let lines = TextWrap.lines("\u{1B}[2mone two\u{1B}[0m three", width: 5)
        #expect(lines == ["\u{1B}[2mone\u{1B}[0m", "\u{1B}[2mtwo\u{1B}[0m", "three"])
    }

    @Test("random text never makes a line wider than the width, and keeps every non-space character in order")
    func randomText() {
        var random = SplitMix(seed: 13)
        let alphabet: [Character] = ["a", "b", " ", " ", "\n", "漢", "😀", "e\u{301}", "\u{200B}", "\t", "é"]
        for _ in 0..<300 {
            let text = String(
                (0..<Int(random.next() % 60)).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            let width = Int(random.next() % 12)
            let lines = TextWrap.lines(text, width: width)
            #expect(
                lines.allSatisfy { TerminalCells.width($0) <= max(1, width) },
                "\(text.debugDescription) at \(width): \(lines)")
            let kept = lines.joined().filter { $0 != " " && $0 != "…" }
            let original = text.filter {
                $0 != " " && $0 != "\t" && $0 != "\n" && !(width < 2 && TerminalCells.width($0) == 2)
            }
            #expect(kept == original, "\(text.debugDescription) at \(width): \(lines)")
        }
    }

    func rowText() throws -> RowText {
        RowText(output: Output(environment: ["NO_COLOR": "1"]), conversation: try ConversationID("c1"))
    }

    func row(_ text: String, status: TimelineRow.Status = .incoming, sender: String = "bob") throws -> RowState {
        RowState(
            clientMessageID: .random(), sequence: 1, time: "10:02", senderID: try UserID(sender), text: text,
            status: status)
    }

    @Test("a long row wraps under its text column and keeps the tick on its last line")
    func wrappedRow() throws {
        let lines = try rowText().wrappedLines(
            try row("the quick brown fox jumps over the lazy dog", status: .outgoing(.sent)),
            senderWidth: 5, timeWidth: 5, width: 34)
        #expect(
            lines == [
                "10:02  bob    the quick brown fox",
                "              jumps over the lazy",
                "              dog  ✓ sent",
            ])
    }

    @Test("a tick that does not fit after the last line goes on a line of its own under the text")
    func tickOnItsOwnLine() throws {
        let lines = try rowText().wrappedLines(
            try row("the quick brown", status: .outgoing(.delivered)), senderWidth: 3, timeWidth: 5, width: 27)
        #expect(
            lines == [
                "10:02  bob  the quick brown",
                "            ✓✓ delivered",
            ])
    }

    @Test("a short row is the same as its view --follow line")
    func shortRowAsLine() throws {
        let text = try rowText()
        let short = try row("hi there", status: .outgoing(.read))
        #expect(
            text.wrappedLines(short, senderWidth: 5, timeWidth: 5, width: 80)
                == text.screenLines(short, senderWidth: 5, timeWidth: 5, width: 80))
    }

    @Test("wide text, explicit lines and wide senders wrap by cells and never pass the width")
    func wideRow() throws {
        let lines = try rowText().wrappedLines(
            try row("漢字かな漢字かな\n😀😀😀", sender: "bob"), senderWidth: 4, timeWidth: 5, width: 20)
        let indent = String(repeating: " ", count: 13)
        #expect(lines == ["10:02  bob   漢字か", indent + "な漢字", indent + "かな", indent + "😀😀😀"])
        #expect(lines.allSatisfy { TerminalCells.width($0) <= 20 }, "\(lines)")
    }

    @Test("control characters in the text are neutralised on every wrapped line")
    func controlsNeutralised() throws {
        let lines = try rowText().wrappedLines(
            try row("clear \u{1B}[2J me \u{9B}31m now \r and more words here"), senderWidth: 3, timeWidth: 5, width: 24)
        #expect(!lines.joined().unicodeScalars.contains { TerminalSafe.isUnsafe($0) }, "\(lines)")
        #expect(lines.joined().contains("^[[2J"))
    }

    @Test("a screen narrower than the prefix still gets lines no wider than it")
    func narrowScreen() throws {
        let lines = try rowText().wrappedLines(
            try row("hello", status: .failed(reason: "rejected")), senderWidth: 3, timeWidth: 5, width: 8)
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { TerminalCells.width($0) <= 8 }, "\(lines)")
    }
}

/// SplitMix64: a small seeded generator, so a random test fails the same way every run.
struct SplitMix {
    var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
