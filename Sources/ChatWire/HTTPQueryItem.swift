/// One `name=value` pair of a query, percent-decoded.
public struct HTTPQueryItem: Sendable, Hashable {
    public var name: String
    public var value: String?

    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}
