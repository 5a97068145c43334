/// Names that may become path components: conversation and user IDs.
///
/// The grammar is `[A-Za-z0-9][A-Za-z0-9._-]{0,63}`. Because the first character cannot be
/// `.` and `/` is never allowed, a valid name can never be `.`, `..`, a hidden file or a path.
public enum Name {
    /// The longest valid name, in characters (all ASCII, so also bytes).
    public static let maxLength = 64

    /// Whether `string` matches the name grammar.
    public static func isValid(_ string: String) -> Bool {
        var string = string
        return string.withUTF8 { isValid(utf8: $0) }
    }

    /// Whether these UTF-8 bytes match the name grammar (all ASCII, so byte checks suffice).
    public static func isValid(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first, bytes.count <= maxLength, isAlphanumeric(first) else {
            return false
        }
        return bytes.dropFirst().allSatisfy {
            isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
    }

    /// Why `string` is not a valid name, or nil when it is.
    public static func problem(with string: String) -> String? {
        if string.isEmpty { return "is empty" }
        let bytes = Array(string.utf8)
        if bytes.count > maxLength { return "is \(bytes.count) bytes long; at most \(maxLength) are allowed" }
        if !isAlphanumeric(bytes[0]) { return "must start with a letter or digit" }
        if !isValid(string) { return "may contain only letters, digits, '.', '_' and '-'" }
        return nil
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }
}
