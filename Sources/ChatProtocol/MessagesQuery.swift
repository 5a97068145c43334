import ChatDomain
import ChatWire

/// The query of `GET /v1/conversations/{id}/messages`: `after=n` (older first, from n + 1) or
/// `before=n` (the newest below n; neither: the newest), and `limit`. The client writes it with
/// ``queryString``; the server reads it strictly with ``init(items:)``.
public struct MessagesQuery: Sendable, Hashable {
    public var after: Int?
    public var before: Int?
    public var limit: Int

    /// The largest page a server answers.
    public static let maxLimit = 500
    /// The page size when the query names none.
    public static let defaultLimit = 50

    public init(after: Int? = nil, before: Int? = nil, limit: Int = Self.defaultLimit) {
        self.after = after
        self.before = before
        self.limit = limit
    }

    /// `after=n&limit=m`, `before=n&limit=m` or `limit=m`.
    public var queryString: String {
        var query = "limit=\(limit)"
        if let after { query = "after=\(after)&" + query }
        if let before { query = "before=\(before)&" + query }
        return query
    }

    /// Reads a request's query items; refuses unknown names, numbers that are not whole numbers
    /// in range, a limit above ``maxLimit`` and `after` with `before`.
    public init(items: [HTTPQueryItem]) throws(WireRequestError) {
        self.init()
        for item in items {
            switch item.name {
            case "after": after = try Self.number(item, min: 0)
            case "before": before = try Self.number(item, min: 1)
            case "limit":
                limit = try Self.number(item, min: 1)
                guard limit <= Self.maxLimit else {
                    throw WireRequestError("limit=\(limit) is too large; at most \(Self.maxLimit)")
                }
            default:
                throw WireRequestError("unknown query parameter \(quoted(item.name)); allowed: after, before, limit")
            }
        }
        if after != nil && before != nil { throw WireRequestError("after and before together; send one of them") }
    }

    private static func number(_ item: HTTPQueryItem, min: Int) throws(WireRequestError) -> Int {
        let text = item.value ?? ""
        guard !text.isEmpty, text.utf8.count <= 15, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let value = Int(text), value >= min
        else {
            throw WireRequestError("\(item.name)=\(quoted(text)) is not a whole number of at least \(min)")
        }
        return value
    }
}
