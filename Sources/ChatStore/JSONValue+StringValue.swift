import ChatDomain

extension JSONValue {
    /// The text of a JSON string; nil for any other value.
    var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }
}
