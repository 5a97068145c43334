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
        return bytes.dropFirst().allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") }
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

/// A conversation's ID; always a valid ``Name``, so it is safe as a directory name.
public struct ConversationID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `rawValue`; throws ``DomainError/invalidConversationID(_:reason:)``.
    public init(_ rawValue: String) throws(DomainError) {
        if let reason = Name.problem(with: rawValue) {
            throw .invalidConversationID(rawValue, reason: reason)
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A user's ID; always a valid ``Name``.
public struct UserID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `rawValue`; throws ``DomainError/invalidUserID(_:reason:)``.
    public init(_ rawValue: String) throws(DomainError) {
        if let reason = Name.problem(with: rawValue) {
            throw .invalidUserID(rawValue, reason: reason)
        }
        self.rawValue = rawValue
    }

    /// A user ID from UTF-8 bytes, checked on the bytes (no intermediate copies); nil when invalid.
    public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard Name.isValid(utf8: bytes) else { return nil }
        rawValue = String(decoding: bytes, as: UTF8.self)
    }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The ID a sending device gives a message, reused on every retry: a UUID in canonical text form
/// (8-4-4-4-12 hexadecimal digits). The text is kept exactly as given, so upper- and lower-case
/// forms from other clients survive a round trip; new IDs are upper-case.
public struct ClientMessageID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `rawValue`; throws ``DomainError/invalidClientMessageID(_:)``.
    public init(_ rawValue: String) throws(DomainError) {
        guard Self.isCanonicalUUID(rawValue) else { throw .invalidClientMessageID(rawValue) }
        self.rawValue = rawValue
    }

    private init(unchecked rawValue: String) { self.rawValue = rawValue }

    /// An ID from UTF-8 bytes, checked on the bytes (no intermediate copies); nil when invalid.
    public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard Self.isCanonicalUUID(utf8: bytes) else { return nil }
        rawValue = String(decoding: bytes, as: UTF8.self)
    }

    /// A fresh random ID (version 4 UUID, upper-case).
    public static func random() -> ClientMessageID {
        var generator = SystemRandomNumberGenerator()
        return random(using: &generator)
    }

    /// A version 4 UUID drawn from `generator`; seeded generators make fixtures reproducible.
    public static func random(using generator: inout some RandomNumberGenerator) -> ClientMessageID {
        var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = (bytes[6] & 0x0F) | 0x40
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let hex = Array("0123456789ABCDEF".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if [4, 6, 8, 10].contains(index) { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return ClientMessageID(unchecked: String(decoding: text, as: UTF8.self))
    }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    static func isCanonicalUUID(_ string: String) -> Bool {
        var string = string
        return string.withUTF8 { isCanonicalUUID(utf8: $0) }
    }

    static func isCanonicalUUID(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                let isHex = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66)
                guard isHex else { return false }
            }
        }
        return true
    }
}
