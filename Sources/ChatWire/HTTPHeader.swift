/// One header field as received or to be sent.
public struct HTTPHeader: Sendable, Hashable {
    /// The field name with the case it was written in; compare names case-insensitively.
    public var name: String
    /// The field value without surrounding whitespace.
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
