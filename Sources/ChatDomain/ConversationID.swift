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
