import ChatDomain
import Testing

@testable import ChatCLI

/// Terminal cells: how wide characters are on screen, and lines cut by cells.
@Suite struct TerminalCellsTests {
    @Test(
        "each character takes the cells a terminal gives it",
        arguments: [
            ("a", 1), (" ", 1), ("~", 1),
            ("é", 1), ("e\u{301}", 1), ("ß", 1), ("Ж", 1), ("…", 1), ("✓", 1), ("◷", 1),
            ("漢", 2), ("中", 2), ("か", 2), ("カ", 2), ("한", 2), ("\u{1112}\u{1161}\u{11AB}", 2),
            ("Ａ", 2), ("\u{3000}", 2), ("𠀋", 2),
            ("😀", 2), ("👍🏽", 2), ("👨‍👩‍👧", 2), ("🇫🇷", 2), ("❤️", 2), ("1️⃣", 2),
            ("❤", 1), ("a\u{FE0F}", 1),
            ("\u{301}", 0), ("\u{200B}", 0), ("\u{200D}", 0), ("\u{20DD}", 0), ("\u{2060}", 0), ("\u{1B}", 0),
            ("\n", 0),
            ("\t", 1),
        ] as [(Character, Int)])
    func characterWidth(_ character: Character, _ cells: Int) {
        #expect(
            TerminalCells.width(character) == cells, "U+\(character.unicodeScalars.map { String($0.value, radix: 16) })"
        )
    }

    @Test(
        "a string's cells add up its characters' and leave out escape sequences",
        arguments: [
            ("", 0), ("hello", 5), ("漢字かな", 8), ("a😀b", 4), ("\u{1B}[1malice\u{1B}[0m", 5),
            ("\u{1B}[2m^[\u{1B}[0m漢", 4), ("e\u{301}e\u{301}", 2), ("👨‍👩‍👧🇫🇷", 4),
        ])
    func stringWidth(_ text: String, _ cells: Int) {
        #expect(TerminalCells.width(text) == cells)
        #expect(Terminal.visibleWidth(text) == cells)
    }

    @Test("the wide ranges are sorted and do not overlap, so the binary search finds every one")
    func rangesSorted() {
        let ranges = TerminalCells.wideRanges
        #expect(ranges.allSatisfy { $0.lower <= $0.upper })
        #expect(zip(ranges, ranges.dropFirst()).allSatisfy { $0.upper < $1.lower })
        for range in ranges {
            #expect(TerminalCells.isWide(range.lower) && TerminalCells.isWide(range.upper))
            #expect(!TerminalCells.isWide(range.lower - 1) || ranges.contains { $0.upper == range.lower - 1 })
        }
    }

    @Test(
        "a line is cut by cells; a wide character that would straddle the last column is left out and padded",
        arguments: [
            ("abcdef", 3, "abc"), ("漢字かな", 4, "漢字"), ("漢字かな", 5, "漢字 "), ("a漢", 2, "a "),
            ("😀😀", 3, "😀 "), ("e\u{301}xyz", 1, "e\u{301}"), ("ab", 5, "ab"), ("漢", 0, ""),
            ("\u{1B}[1m漢字\u{1B}[0m", 3, "\u{1B}[1m漢 \u{1B}[0m"),
        ])
    func fitByCells(_ line: String, _ width: Int, _ expected: String) {
        let cut = Terminal.fit(line, width: width)
        #expect(cut == expected)
        #expect(Terminal.visibleWidth(cut) <= width)
    }

    @Test("view --follow rows of wide text are cut to the screen's columns, not its characters")
    func screenLinesByCells() throws {
        let text = RowText(output: Output(environment: ["NO_COLOR": "1"]), conversation: try ConversationID("c1"))
        let row = RowState(
            clientMessageID: .random(), sequence: 1, time: "10:02", senderID: try UserID("bob"),
            text: String(repeating: "漢字", count: 30), status: .outgoing(.sent))
        let lines = text.screenLines(row, senderWidth: 3, timeWidth: 5, width: 40)
        #expect(lines.count == 1)
        #expect(lines.allSatisfy { Terminal.visibleWidth($0) <= 40 }, "\(lines)")
        #expect(lines[0].hasSuffix("…  ✓ sent"))
    }

    @Test(
        "characters terminals draw two cells wide count two: Yijing hexagrams beside CJK Extension A (wide since Unicode 15.1), trigrams, monograms and counting rods (16.0), circled numbers on black squares (glibc's wcwidth)",
        arguments: ["䷀", "䷿", "☰", "☷", "⚊", "⚏", "𝌀", "𝍠", "㉈", "㉏", "㐀", "䶿"])
    func terminalsDrawWide(_ text: String) {
        #expect(TerminalCells.width(text) == 2)
    }
}
