import ChatTestSupport
import Testing

@testable import ChatCLI

@Suite(.ownThreads) struct LineEditorTests {
    /// An editor holding `text` with the cursor at `cursor` (the end when nil).
    func editor(_ text: String, cursor: Int? = nil) -> LineEditor {
        var editor = LineEditor(text)
        if let cursor { for _ in 0..<(text.count - cursor) { editor.moveLeft() } }
        return editor
    }

    @Test("typing and pasting insert at the cursor; CR and CR LF in a paste become newlines")
    func insert() {
        var line = editor("helo", cursor: 3)
        line.insert("l")
        #expect(line.text == "hello" && line.cursor == 4)
        line.moveToLineEnd()
        line.insert(" a\r\nb\rc")
        #expect(line.text == "hello a\nb\nc")
        #expect(line.cursor == line.characters.count)
    }

    @Test("Backspace and Delete remove one character (an accented letter or an emoji is one), and nothing at the ends")
    func deleting() {
        var line = editor("cafe\u{301}🍕", cursor: 4)
        line.deleteBackward()
        #expect(line.text == "caf🍕")
        line.deleteForward()
        #expect(line.text == "caf" && line.cursor == 3)
        line.deleteForward()
        #expect(line.text == "caf")
        var start = editor("ab", cursor: 0)
        start.deleteBackward()
        #expect(start.text == "ab" && start.cursor == 0)
    }

    @Test("← → move by character and stop at the ends; Home and End go to the cursor's line's start and end")
    func moving() {
        var line = editor("one\ntwo", cursor: 5)
        line.moveToLineStart()
        #expect(line.cursor == 4)
        line.moveLeft()
        line.moveToLineStart()
        #expect(line.cursor == 0)
        line.moveLeft()
        #expect(line.cursor == 0)
        line.moveToLineEnd()
        #expect(line.cursor == 3)
        line.moveRight()
        line.moveRight()
        line.moveToLineEnd()
        line.moveRight()
        #expect(line.cursor == 7)
    }

    @Test(
        "Ctrl-U kills to the line's start, Ctrl-K to its end, Ctrl-W the previous word and the spaces after it",
        arguments: [
            ("hello big world", 9, "u", " world", 0),
            ("hello big world", 9, "k", "hello big", 9),
            ("hello big world", 10, "w", "hello world", 6),
            ("hello big   ", 12, "w", "hello ", 6),
            ("one\ntwo three", 13, "u", "one\n", 4),
            ("one\ntwo three", 6, "k", "one\ntw", 6),
            ("", 0, "w", "", 0),
        ])
    func kills(_ text: String, _ cursor: Int, _ key: Character, _ after: String, _ afterCursor: Int) {
        var line = editor(text, cursor: cursor)
        switch key {
        case "u": line.killToLineStart()
        case "k": line.killToLineEnd()
        default: line.killPreviousWord()
        }
        #expect(line.text == after)
        #expect(line.cursor == afterCursor)
    }

    @Test("↑ and ↓ move between the lines of a message, keeping the column when the line is long enough")
    func upDown() {
        var line = editor("abcdef\nxy\nlong line", cursor: 14)
        let moved1 = line.moveUpLine()

        #expect(moved1)
        #expect(line.cursor == 9, "the end of the shorter line")
        let moved2 = line.moveUpLine()

        #expect(moved2)
        #expect(line.cursor == 2)
        let moved3 = line.moveUpLine()

        #expect(!moved3)
        let moved4 = line.moveDownLine()

        #expect(moved4)
        #expect(line.cursor == 9)
        let moved5 = line.moveDownLine()

        #expect(moved5)
        let moved6 = line.moveDownLine()

        #expect(!moved6)
    }

    @Test("lines splits at newlines and says where the cursor stands; blank means only whitespace")
    func lines() {
        let line = editor("ab\ncd", cursor: 4)
        let split = line.lines
        #expect(split.lines == [["a", "b"], ["c", "d"]])
        #expect(split.cursorLine == 1 && split.cursorOffset == 1)
        #expect(editor("  \n\t").isBlank)
        #expect(!editor(" x ").isBlank)
        #expect(LineEditor().lines.lines == [[]])
    }
}
