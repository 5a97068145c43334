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
