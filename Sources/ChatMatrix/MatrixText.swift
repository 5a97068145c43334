/// How text from a server is shown inside a refusal or an error: on one line, short, with no
/// byte that could drive a terminal, since a server (or any room member) chooses it.
enum MatrixText {
    /// `text` with every control character (C0, DEL, C1) and line or paragraph separator as `?`,
    /// cut to `maxLength` characters with `…`.
    static func oneLine(_ text: String, maxLength: Int) -> String {
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == maxLength {
                result += "…"
                break
            }
            let value = scalar.value
            let isControl = value < 0x20 || (0x7F...0x9F).contains(value) || value == 0x2028 || value == 0x2029
            result.unicodeScalars.append(isControl ? "?" : scalar)
            count += 1
        }
        return result
    }

    /// `text` quoted for a refusal: one line, at most 64 characters.
    static func quoted(_ text: String) -> String {
        "\"" + oneLine(text, maxLength: 64) + "\""
    }
}
