/// Why a string is not a Matrix identifier of the kind asked for: the kind, the string (quoted,
/// one line) and the rule it breaks.
public struct MatrixIdentifierError: Error, Equatable, Sendable, CustomStringConvertible {
    /// "user ID", "room ID", "event ID", "room alias".
    public var kind: String
    public var text: String
    public var reason: String

    public var description: String {
        let article = kind.hasPrefix("event") ? "an" : "a"
        return "not \(article) \(kind) (\(MatrixText.quoted(text))): \(reason)"
    }
}
