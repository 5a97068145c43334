/// Byte classes from the HTTP grammar (RFC 9110 §5.6), shared by the request and response parsers.
enum ASCII {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let colon = UInt8(ascii: ":")

    /// `tchar`: the characters allowed in methods and header names.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// Visible ASCII, `VCHAR`: what a request target may contain.
    static func isVisible(_ byte: UInt8) -> Bool {
        (0x21...0x7E).contains(byte)
    }

    /// `SP` or `HTAB`, the optional whitespace around header values.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    /// What a header value or reason phrase may contain: anything but control characters,
    /// tabs allowed (bytes ≥ 0x80 are `obs-text`).
    static func isFieldContent(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    static func digitValue(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Bytes for an error message: quoted, control and non-ASCII bytes as `\xNN`, cut after 80.
    static func quoted(_ bytes: some Collection<UInt8>) -> String {
        var text = ""
        for byte in bytes.prefix(80) {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                text += "\\" + String(Unicode.Scalar(byte))
            case 0x20...0x7E:
                text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                text += (byte < 0x10 ? "\\x0" : "\\x") + String(byte, radix: 16, uppercase: true)
            }
        }
        return "\"" + text + (bytes.count > 80 ? "…" : "") + "\""
    }

    /// Several values for an error message, each quoted: `"5", "6"`.
    static func quoted(_ values: [String]) -> String {
        values.map { quoted($0.utf8) }.joined(separator: ", ")
    }
}
