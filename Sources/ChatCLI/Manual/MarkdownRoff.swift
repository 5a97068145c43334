/// The small Markdown that docs/FORMAT.md is written in, as man(7) roff: `#` headings,
/// paragraphs, fenced code blocks, `- ` lists with indented continuation lines, `code` and
/// **bold**. Enough for the project's own docs; anything else is kept as text.
enum MarkdownRoff {
    /// The document's sections after its `#` title, as roff (`##` → `.SH`, `###` → `.SS`).
    /// Text before the first `##` goes under `lead`, a section heading of the caller's choosing.
    static func body(_ markdown: String, lead: String) -> String {
        var output = ".SH \(heading(lead))\n"
        var inFence = false
        var fence: [String] = []
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("```") {
                if inFence {
                    output += Roff.literal(fence)
                    fence = []
                }
                inFence.toggle()
                continue
            }
            if inFence {
                fence.append(line)
                continue
            }
            if line.hasPrefix("# ") { continue }
            if line.hasPrefix("### ") {
                output += ".SS " + quoted(String(line.dropFirst(4))) + "\n"
            } else if line.hasPrefix("## ") {
                output += ".SH " + heading(String(line.dropFirst(3))) + "\n"
            } else if line.hasPrefix("- ") {
                output += ".IP \\(bu 2\n" + Roff.text(String(line.dropFirst(2))) + "\n"
            } else if line.trimmingWhitespace().isEmpty {
                output += ".PP\n"
            } else {
                output += Roff.text(line.trimmingWhitespace()) + "\n"
            }
        }
        if inFence { output += Roff.literal(fence) }
        return collapse(output)
    }

    /// A section heading: upper case, as man pages have them, quoted for roff.
    static func heading(_ text: String) -> String {
        quoted(text.uppercased())
    }

    private static func quoted(_ text: String) -> String {
        "\"" + Roff.escape(text).replacing("\"", with: "\\(dq") + "\""
    }

    /// Drops a `.PP` that directly follows a heading or another `.PP` (groff warns about neither,
    /// but the page reads better without the empty paragraphs).
    private static func collapse(_ roff: String) -> String {
        var lines: [Substring] = []
        for line in roff.split(separator: "\n", omittingEmptySubsequences: false) {
            if line == ".PP", let last = lines.last, last == ".PP" || last.hasPrefix(".SH") || last.hasPrefix(".SS") {
                continue
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
