import ChatDomain

/// A user's ID, `@localpart:server`.
/// Always valid by the identifier grammar (``MatrixIdentifierGrammar``), at most 255 bytes.
public struct MatrixUserID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Validates `rawValue`; throws a ``MatrixIdentifierError`` naming the rule it breaks.
    public init(_ rawValue: String) throws(MatrixIdentifierError) {
        if let reason = MatrixIdentifierGrammar.problem(rawValue, sigil: UInt8(ascii: "@"), server: .required) {
            throw MatrixIdentifierError(kind: "user ID", text: rawValue, reason: reason)
        }
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The server name after the first `:` (`example.org`, `example.org:8448`, `[::1]:8448`):
    /// where discovery starts looking for the user's homeserver.
    public var serverName: String {
        guard let colon = rawValue.firstIndex(of: ":") else { return "" }
        return String(rawValue[rawValue.index(after: colon)...])
    }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
