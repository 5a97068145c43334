/// Makes text that came from outside (message text, titles, IDs, server reasons, `sentAt`)
/// safe to write to a terminal: every character a terminal would obey instead of show is
/// written as a visible notation, so another member cannot clear my screen, recolour it, set
/// my clipboard (OSC 52) or reorder a line with a bidirectional override.
///
/// Made visible: C0 controls except newline and tab (`ESC` → `^[`, `CR` → `^M`), DEL (`^?`),
/// C1 controls U+0080–U+009F (`\u{9b}`) and the bidirectional embeddings, overrides and
/// isolates U+202A–U+202E, U+2066–U+2069 (`\u{202e}`). Everything else is kept as it is.
/// The same rule applies on a terminal and in a pipe; only the colour of the notation differs.
/// `--json` and `watch` keep the exact text instead, escaped as JSON (``JSONLine``).
enum TerminalSafe {
    /// `text` with every unsafe character replaced by its notation, each notation passed
    /// through `mark` (dim on a terminal, unchanged in a pipe).
    static func visible(_ text: String, mark: (String) -> String = { $0 }) -> String {
        // Printable ASCII (most rows, times, IDs) needs no decoding to be known safe.
        let plainASCII = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x0A || $0 == 0x09 }
        }
        if plainASCII == true { return text }
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                out.append(contentsOf: mark(notation(scalar)).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// Whether a terminal could act on `scalar` rather than show it.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A, 0x09: false
        case 0x00..<0x20, 0x7F, 0x80...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// Caret notation for C0 and DEL (as `cat -v` shows them), `\u{…}` for the others.
    static func notation(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x00..<0x20: "^" + String(Unicode.Scalar(UInt8(scalar.value) + 0x40))
        case 0x7F: "^?"
        default: "\\u{" + String(scalar.value, radix: 16) + "}"
        }
    }
}
