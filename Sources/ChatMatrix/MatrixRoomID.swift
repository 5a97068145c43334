import ChatDomain

/// A room's ID: `!opaque:server`, or `!opaque` alone as room version 12 makes them.
/// Always valid by the identifier grammar (``MatrixIdentifierGrammar``), at most 255 bytes.
public struct MatrixRoomID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `rawValue`; throws a ``MatrixIdentifierError`` naming the rule it breaks.
    public init(_ rawValue: String) throws(MatrixIdentifierError) {
        if let reason = MatrixIdentifierGrammar.problem(rawValue, sigil: UInt8(ascii: "!"), server: .optional) {
            throw MatrixIdentifierError(kind: "room ID", text: rawValue, reason: reason)
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
