/// A user's ID: a ``Name`` (`alice`, what wire v1 and `chatdir serve` use) or a Matrix user ID
/// (`@alice:example.org`, at most 255 bytes, by ``MatrixIdentifierGrammar``).
///
/// The two grammars cannot overlap: a name never starts with `@`. A Matrix user ID is not a
/// valid path component (it holds `:` and may hold `/`), so where a user ID names a file it goes
/// through ``fileName`` and back through ``named(fileName:)``.
public struct UserID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `rawValue` as either grammar; throws ``DomainError/invalidUserID(_:reason:)``.
    public init(_ rawValue: String) throws(DomainError) {
        if rawValue.utf8.first == UInt8(ascii: "@") {
            if let reason = MatrixIdentifierGrammar.problem(rawValue, sigil: UInt8(ascii: "@"), server: .required) {
                throw .invalidUserID(rawValue, reason: "not a Matrix user ID: \(reason)")
            }
        } else if let reason = Name.problem(with: rawValue) {
            throw .invalidUserID(rawValue, reason: reason)
        }
        self.rawValue = rawValue
    }

    private init(unchecked rawValue: String) { self.rawValue = rawValue }

    /// Validates `rawValue` as a ``Name`` only: wire v1's user IDs.
    public static func name(_ rawValue: String) throws(DomainError) -> UserID {
        if let reason = Name.problem(with: rawValue) {
            throw .invalidUserID(rawValue, reason: reason)
        }
        return UserID(unchecked: rawValue)
    }

    /// A user ID from UTF-8 bytes; nil when invalid. A name is checked on the bytes (no
    /// intermediate copies); only an ID starting with `@` pays for the Matrix grammar.
    public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        if bytes.first == UInt8(ascii: "@") {
            let text = String(decoding: bytes, as: UTF8.self)
            guard MatrixIdentifierGrammar.problem(text, sigil: UInt8(ascii: "@"), server: .required) == nil else {
                return nil
            }
            rawValue = text
            return
        }
        guard Name.isValid(utf8: bytes) else { return nil }
        rawValue = String(decoding: bytes, as: UTF8.self)
    }

    /// Whether this is a Matrix user ID (`@localpart:server`) rather than a name.
    public var isMatrix: Bool { rawValue.utf8.first == UInt8(ascii: "@") }

    /// This ID as a file name: a name as itself; a Matrix user ID with `%` and every byte that
    /// is not a letter, digit, `.`, `_`, `-` or `@` as `%XX` (`@bob:example.org` is
    /// `@bob%3Aexample.org`). nil when that is longer than a file name may be (255 bytes).
    public var fileName: String? {
        guard isMatrix else { return rawValue }
        let name = PercentEncoding.encode(rawValue) {
            PercentEncoding.isLetterDigitOrMark($0) || $0 == UInt8(ascii: "@")
        }
        return name.utf8.count <= 255 ? name : nil
    }

    /// The user ID a ``fileName`` names; nil for any other file name (a `%` escape in a name, a
    /// lower-case or broken escape, a byte that should have been escaped, or an invalid ID).
    public static func named(fileName: String) -> UserID? {
        let bytes = Array(fileName.utf8)
        guard bytes.first == UInt8(ascii: "@") else { return try? name(fileName) }
        var decoded: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, let high = Self.upperHex(bytes[index + 1]),
                    let low = Self.upperHex(bytes[index + 2])
                else { return nil }
                decoded.append(high << 4 | low)
                index += 3
            } else {
                decoded.append(byte)
                index += 1
            }
        }
        guard let id = try? UserID(String(decoding: decoded, as: UTF8.self)), id.isMatrix, id.fileName == fileName
        else { return nil }
        return id
    }

    private static func upperHex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        default: nil
        }
    }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
