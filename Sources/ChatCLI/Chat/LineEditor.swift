/// The chat screen's input line, edited as readline edits a line: text is inserted at the
/// cursor, and the kill keys remove to the start or end of the line the cursor is on (a message
/// may hold several lines; Alt-Enter inserts a newline). Positions count characters (grapheme
/// clusters), so a cursor never stands inside an accented letter or an emoji.
struct LineEditor: Hashable, Sendable {
    private(set) var characters: [Character] = []
    /// Index in ``characters`` before which typing inserts (0 ... count).
    private(set) var cursor = 0

    init(_ text: String = "") {
        set(text)
    }

    /// The text as typed, newlines included.
    var text: String { String(characters) }
    var isEmpty: Bool { characters.isEmpty }
    /// Nothing but whitespace: Enter sends nothing and no typing signal goes out.
    var isBlank: Bool { characters.allSatisfy(\.isWhitespace) }

    /// Replaces the text (a recalled message) and puts the cursor at its end.
    mutating func set(_ text: String) {
        characters = Array(Self.normalised(text))
        cursor = characters.count
    }

    mutating func clear() { set("") }

    /// Inserts typed or pasted text at the cursor. CR and CR LF (a paste from another system)
    /// become newlines, so a pasted line break inserts rather than sends.
    mutating func insert(_ text: String) {
        let new = Array(Self.normalised(text))
        characters.insert(contentsOf: new, at: cursor)
        cursor += new.count
    }

    /// Backspace: the character before the cursor.
    mutating func deleteBackward() {
        guard cursor > 0 else { return }
        characters.remove(at: cursor - 1)
        cursor -= 1
    }

    /// Delete: the character under the cursor.
    mutating func deleteForward() {
        guard cursor < characters.count else { return }
        characters.remove(at: cursor)
    }

    mutating func moveLeft() { cursor = max(0, cursor - 1) }
    mutating func moveRight() { cursor = min(characters.count, cursor + 1) }

    /// Home, Ctrl-A: the start of the cursor's line.
    mutating func moveToLineStart() { cursor = lineStart }
    /// End, Ctrl-E: the end of the cursor's line.
    mutating func moveToLineEnd() { cursor = lineEnd }

    /// Ctrl-U: removes from the start of the cursor's line to the cursor.
    mutating func killToLineStart() {
        let start = lineStart
        characters.removeSubrange(start..<cursor)
        cursor = start
    }

    /// Ctrl-K: removes from the cursor to the end of its line.
    mutating func killToLineEnd() {
        characters.removeSubrange(cursor..<lineEnd)
    }

    /// Ctrl-W: removes the word before the cursor and the whitespace between (readline's
    /// `unix-word-rubout`: words end at whitespace).
    mutating func killPreviousWord() {
        var start = cursor
        while start > 0, characters[start - 1].isWhitespace { start -= 1 }
        while start > 0, !characters[start - 1].isWhitespace { start -= 1 }
        characters.removeSubrange(start..<cursor)
        cursor = start
    }

    /// ↑ inside a message of several lines: the same column of the line above (or its end).
    /// Returns false on the first line, where ↑ means something else (recall).
    mutating func moveUpLine() -> Bool {
        let start = lineStart
        guard start > 0 else { return false }
        let column = cursor - start
        let previousEnd = start - 1
        var previousStart = previousEnd
        while previousStart > 0, characters[previousStart - 1] != "\n" { previousStart -= 1 }
        cursor = min(previousStart + column, previousEnd)
        return true
    }

    /// ↓ inside a message of several lines; false on the last line.
    mutating func moveDownLine() -> Bool {
        let end = lineEnd
        guard end < characters.count else { return false }
        let column = cursor - lineStart
        let nextStart = end + 1
        var nextEnd = nextStart
        while nextEnd < characters.count, characters[nextEnd] != "\n" { nextEnd += 1 }
        cursor = min(nextStart + column, nextEnd)
        return true
    }

    /// The text split into lines (one at least), and the cursor's line and character offset in it.
    var lines: (lines: [[Character]], cursorLine: Int, cursorOffset: Int) {
        var lines: [[Character]] = [[]]
        var cursorLine = 0
        var cursorOffset = 0
        for (index, character) in characters.enumerated() {
            if index == cursor { (cursorLine, cursorOffset) = (lines.count - 1, lines[lines.count - 1].count) }
            if character == "\n" { lines.append([]) } else { lines[lines.count - 1].append(character) }
        }
        if cursor == characters.count { (cursorLine, cursorOffset) = (lines.count - 1, lines[lines.count - 1].count) }
        return (lines, cursorLine, cursorOffset)
    }

    private var lineStart: Int {
        var index = cursor
        while index > 0, characters[index - 1] != "\n" { index -= 1 }
        return index
    }

    private var lineEnd: Int {
        var index = cursor
        while index < characters.count, characters[index] != "\n" { index += 1 }
        return index
    }

    /// CR LF is one Character in Swift; both it and a lone CR become a newline.
    private static func normalised(_ text: String) -> String {
        guard text.contains(where: { $0 == "\r" || $0 == "\r\n" }) else { return text }
        return String(text.map { $0 == "\r" || $0 == "\r\n" ? "\n" : $0 })
    }
}
