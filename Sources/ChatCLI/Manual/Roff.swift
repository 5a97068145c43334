/// Text made safe for man(7) roff: the pieces the manual pages are built from.
enum Roff {
    /// `text` with roff's escape character and every non-ASCII character as a groff escape
    /// (`\[u2713]` for ✓), so the page renders the same whatever input encoding groff assumes.
    static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\e"
            case "-": result += "\\-"
            case _ where scalar.value > 127:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\[u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex + "]"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// One line of filled text: escaped, `code` and **bold** set in bold, and guarded so a line
    /// starting with `.` or `'` is not read as a request.
    static func text(_ line: String) -> String {
        var result = ""
        var inCode = false
        var index = line.startIndex
        var bold = false
        while index < line.endIndex {
            let character = line[index]
            if character == "`" {
                inCode.toggle()
                result += inCode ? "\\fB" : "\\fR"
            } else if !inCode, line[index...].hasPrefix("**") {
                bold.toggle()
                result += bold ? "\\fB" : "\\fR"
                index = line.index(after: index)
            } else {
                result += escape(String(character))
            }
            index = line.index(after: index)
        }
        if inCode || bold { result += "\\fR" }
        return guarded(result)
    }

    /// Lines shown as they are (no filling), indented, in a constant-width look.
    static func literal(_ lines: [String]) -> String {
        ".RS 4\n.nf\n" + lines.map { guarded(escape($0)) }.joined(separator: "\n") + "\n.fi\n.RE\n"
    }

    /// A line that starts with `.` or `'` gets a zero-width `\&` in front.
    static func guarded(_ line: String) -> String {
        line.hasPrefix(".") || line.hasPrefix("'") ? "\\&" + line : line
    }

    /// Paragraphs of a command's help discussion: filled text, and lines indented by two or
    /// more spaces (examples, tables) kept as they are.
    static func paragraphs(_ discussion: String) -> String {
        var output = ""
        var literalLines: [String] = []
        func flush() {
            if !literalLines.isEmpty { output += literal(literalLines) }
            literalLines = []
        }
        var startParagraph = true
        for line in discussion.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.trimmingWhitespace().isEmpty {
                flush()
                startParagraph = true
            } else if line.hasPrefix("  ") {
                literalLines.append(String(line.dropFirst(2)))
            } else {
                flush()
                if startParagraph { output += ".PP\n" }
                startParagraph = false
                output += text(line) + "\n"
            }
        }
        flush()
        return output
    }
}
