/// The path and query of a request (origin form, RFC 9112 §3.2.1), with percent-decoding helpers.
public struct HTTPRequestTarget: Sendable, Hashable, CustomStringConvertible {
    /// The path as sent, still percent-encoded: `/v1/conversations/c1/messages`.
    public var path: String
    /// What follows the first `?`, still percent-encoded; nil when there is no `?`.
    public var query: String?

    public init(path: String, query: String? = nil) {
        self.path = path
        self.query = query
    }

    /// Splits a target as written on the wire at its first `?`.
    public init(_ target: String) {
        if let questionMark = target.firstIndex(of: "?") {
            self.init(
                path: String(target[..<questionMark]), query: String(target[target.index(after: questionMark)...]))
        } else {
            self.init(path: target)
        }
    }

    /// The target as written on the wire: `/v1/conversations/c1/messages?after=417`.
    public var description: String { query.map { "\(path)?\($0)" } ?? path }

    /// The path's segments, percent-decoded: `/v1/conversations/c%201` gives `["v1", "conversations", "c 1"]`.
    public var pathSegments: [String] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(Self.percentDecode)
    }

    /// The `name=value` pairs of the query separated by `&`, percent-decoded, in order;
    /// a pair without `=` has a nil value. `+` stays `+` (RFC 3986; it means space only in HTML forms).
    public var queryItems: [HTTPQueryItem] {
        guard let query else { return [] }
        return query.split(separator: "&").map { pair in
            guard let equals = pair.firstIndex(of: "=") else {
                return HTTPQueryItem(name: Self.percentDecode(pair), value: nil)
            }
            return HTTPQueryItem(
                name: Self.percentDecode(pair[..<equals]),
                value: Self.percentDecode(pair[pair.index(after: equals)...])
            )
        }
    }

    /// The value of the first query item called `name` (case-sensitive), or nil if none has a value.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// `text` with each `%XX` replaced by the byte it encodes, read as UTF-8.
    ///
    /// Lenient like the WHATWG URL standard: a `%` not followed by two hex digits stays as it is,
    /// and bytes that are not UTF-8 become U+FFFD, so decoding never fails and never guesses.
    public static func percentDecode(_ text: some StringProtocol) -> String {
        let input = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%"), index + 2 < input.count,
                let high = ASCII.hexValue(input[index + 1]), let low = ASCII.hexValue(input[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(input[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
