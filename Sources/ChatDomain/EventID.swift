/// A Matrix event's ID as a Matrix store's records carry it: `$opaque` (room versions 3 and
/// later) or `$local:server` (1 and 2), valid by ``MatrixIdentifierGrammar``, at most 255 bytes.
/// Here, beside ``Message``, because a record names its event and the event it edits.
public struct EventID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `rawValue`; throws ``DomainError/invalidEventID(_:reason:)``.
    public init(_ rawValue: String) throws(DomainError) {
        if let reason = MatrixIdentifierGrammar.problem(rawValue, sigil: UInt8(ascii: "$"), server: .optional) {
            throw .invalidEventID(rawValue, reason: reason)
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
