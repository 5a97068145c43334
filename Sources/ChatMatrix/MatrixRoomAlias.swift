import ChatDomain

/// A room's alias, `#name:server`.
/// Always valid by the identifier grammar (``MatrixIdentifierGrammar``), at most 255 bytes.
public struct MatrixRoomAlias: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `rawValue`; throws a ``MatrixIdentifierError`` naming the rule it breaks.
    public init(_ rawValue: String) throws(MatrixIdentifierError) {
        if let reason = MatrixIdentifierGrammar.problem(rawValue, sigil: UInt8(ascii: "#"), server: .required) {
            throw MatrixIdentifierError(kind: "room alias", text: rawValue, reason: reason)
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
