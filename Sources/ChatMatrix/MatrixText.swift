/// How text from a server is shown inside a refusal or an error: on one line, short, with no
/// byte that could drive a terminal, since a server (or any room member) chooses it.
enum MatrixText {
    /// `text` with every control character (``isControl(_:)``) as `?`, cut to `maxLength`
    /// characters with `…`.
    static func oneLine(_ text: String, maxLength: Int) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == maxLength {
                result += "…"
                break
            }
            result.unicodeScalars.append(isControl(scalar) ? "?" : scalar)
            count += 1
        }
        return result
    }

    /// A C0 or C1 control, DEL, a line or paragraph separator, or a bidirectional override
    /// (U+202A–U+202E, U+2066–U+2069, as `JSONWriter`'s terminal-safe escaping has them): what
    /// must never reach a log line or a terminal from a server.
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `text` quoted for a refusal: one line, at most 64 characters.
    static func quoted(_ text: String) -> String {
        "\"" + oneLine(text, maxLength: 64) + "\""
    }
}
