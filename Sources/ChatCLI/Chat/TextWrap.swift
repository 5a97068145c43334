/// Word wrap by terminal cells, for message text on the chat screen: lines break at spaces,
/// a word wider than the line is broken between characters, and `\n` starts a new line.
///
/// Escape sequences (ESC up to the next letter, the SGR styles ``Output/styled(_:_:)`` writes)
/// take no cells and are never a place to break; a style still open where a line breaks is
/// closed at the end of that line and opened again at the start of the next, so every line can
/// be drawn (or cut by ``Terminal/fit(_:width:)``) on its own.
enum TextWrap {
    /// `text` as lines no wider than `width` cells (a `width` below 1 counts as 1).
    ///
    /// Spaces where a line breaks are dropped; spaces between words on one line, and before
    /// the first word of a paragraph, are kept. A tab is laid out as one space (its width on a
    /// terminal depends on the column). A character wider than the whole line (a wide one on a
    /// line one cell wide) is shown as `…`. Always at least one line, empty for empty text.
    static func lines(_ text: String, width: Int) -> [String] {
        var layout = Layout(width: max(1, width))
        for (index, paragraph) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if index > 0 { layout.endLine() }
            for token in tokens(paragraph) { layout.place(token) }
            layout.endParagraph()
        }
        layout.endLine()
        return layout.lines
    }

    /// One piece of a paragraph: a run of spaces, or a word (characters and escape sequences).
    enum Token {
        case spaces(Int)
        case word([Unit])
    }

    /// A character with its cells, or an escape sequence (no cells).
    struct Unit {
        var text: String
        var cells: Int
        var isEscape: Bool
    }

    static func tokens(_ paragraph: Substring) -> [Token] {
        var tokens: [Token] = []
        var word: [Unit] = []
        var spaces = 0
        var escape: String?
        for character in paragraph {
            if var sequence = escape {
                sequence.append(character)
                if character.isLetter {
                    word.append(Unit(text: sequence, cells: 0, isEscape: true))
                    escape = nil
                } else {
                    escape = sequence
                }
                continue
            }
            if character == " " || character == "\t" {
                if !word.isEmpty {
                    tokens.append(.word(word))
                    word = []
                }
                spaces += 1
                continue
            }
            if spaces > 0 {
                tokens.append(.spaces(spaces))
                spaces = 0
            }
            if character == "\u{1B}" {
                escape = String(character)
            } else {
                word.append(Unit(text: String(character), cells: TerminalCells.width(character), isEscape: false))
            }
        }
        if let escape { word.append(Unit(text: escape, cells: 0, isEscape: true)) }
        if !word.isEmpty { tokens.append(.word(word)) }
        if spaces > 0 { tokens.append(.spaces(spaces)) }
        return tokens
    }

    /// The lines being built, greedily: a word goes on the current line if it fits there.
    struct Layout {
        let width: Int
        var lines: [String] = []
        var line = ""
        var cells = 0
        /// Spaces seen since the last word, placed only if a word follows on the same line.
        var pendingSpaces = 0
        /// The SGR sequence in effect at the end of `line`, if a style is open.
        var openStyle: String?

        init(width: Int) {
            self.width = width
        }

        mutating func place(_ token: Token) {
            switch token {
            case .spaces(let count):
                pendingSpaces += count
            case .word(let units):
                let wordCells = units.reduce(0) { $0 + $1.cells }
                if cells + pendingSpaces + wordCells <= width {
                    line += String(repeating: " ", count: pendingSpaces)
                    cells += pendingSpaces
                    units.forEach { append($0) }
                } else if wordCells <= width {
                    if cells > 0 { endLine() }
                    units.forEach { append($0) }
                } else {
                    // Too long for any line: it starts a line of its own and breaks by cells.
                    if cells > 0 { endLine() }
                    for unit in units {
                        if cells + unit.cells > width, cells > 0 { endLine() }
                        if unit.cells > width {
                            append(Unit(text: "…", cells: 1, isEscape: false))
                        } else {
                            append(unit)
                        }
                    }
                }
                pendingSpaces = 0
            }
        }

        /// Trailing spaces stay (an input line shows the space just typed) as far as they fit.
        mutating func endParagraph() {
            let room = max(0, min(pendingSpaces, width - cells))
            line += String(repeating: " ", count: room)
            cells += room
            pendingSpaces = 0
        }

        mutating func append(_ unit: Unit) {
            line += unit.text
            cells += unit.cells
            guard unit.isEscape, unit.text.hasSuffix("m") else { return }
            openStyle = unit.text == "\u{1B}[0m" || unit.text == "\u{1B}[m" ? nil : unit.text
        }

        mutating func endLine() {
            if openStyle != nil { line += "\u{1B}[0m" }
            lines.append(line)
            line = openStyle ?? ""
            cells = 0
            pendingSpaces = 0
        }
    }
}
