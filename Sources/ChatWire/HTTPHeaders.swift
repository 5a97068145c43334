/// The header fields of a message, in order, duplicates kept, looked up case-insensitively.
public struct HTTPHeaders: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    private var fields: [HTTPHeader]

    public init(_ fields: [HTTPHeader] = []) {
        self.fields = fields
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { HTTPHeader(name: $0.0, value: $0.1) }
    }

    public var startIndex: Int { fields.startIndex }
    public var endIndex: Int { fields.endIndex }
    public subscript(position: Int) -> HTTPHeader { fields[position] }

    /// The value of the first field called `name`, or nil if there is none.
    public subscript(name: String) -> String? {
        fields.first { Self.matches($0.name, name) }?.value
    }

    /// The values of every field called `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { Self.matches($0.name, name) }.map(\.value)
    }

    /// The comma-separated tokens of every field called `name`, lowercased, empty ones dropped:
    /// `Connection: keep-alive, Upgrade` gives `["keep-alive", "upgrade"]`.
    public func tokens(for name: String) -> [String] {
        values(for: name).flatMap { value in
            value.split(separator: ",").map { $0.trimmingSpacesAndTabs().lowercased() }.filter { !$0.isEmpty }
        }
    }

    /// Whether a field called `name` lists `token`, ignoring ASCII case (as `Connection` and `Upgrade` need).
    public func containsToken(_ token: String, for name: String) -> Bool {
        tokens(for: name).contains(token.lowercased())
    }

    /// Appends a field, keeping any others of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(HTTPHeader(name: name, value: value))
    }

    /// Removes every field called `name`.
    public mutating func remove(name: String) {
        fields.removeAll { Self.matches($0.name, name) }
    }

    private static func matches(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && a.lowercased() == b.lowercased()
    }
}
