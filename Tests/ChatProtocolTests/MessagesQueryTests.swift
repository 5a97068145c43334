import ChatProtocol
import ChatWire
import Testing

@Suite struct MessagesQueryTests {
    static func items(_ query: String) -> [HTTPQueryItem] {
        HTTPRequestTarget("/x?" + query).queryItems
    }

    @Test("the client's query string reads back as the same query")
    func roundTrip() throws {
        let queries = [
            MessagesQuery(after: 5, limit: 500), MessagesQuery(before: 9, limit: 20), MessagesQuery(limit: 7),
        ]
        #expect(queries.map(\.queryString) == ["after=5&limit=500", "before=9&limit=20", "limit=7"])
        for query in queries {
            #expect(try MessagesQuery(items: Self.items(query.queryString)) == query)
        }
        #expect(try MessagesQuery(items: []) == MessagesQuery(limit: MessagesQuery.defaultLimit))
    }

    static let refusals: [(query: String, message: String)] = [
        ("limit=501", "limit=501 is too large; at most 500"),
        ("limit=0", #"limit="0" is not a whole number of at least 1"#),
        ("after=-1", #"after="-1" is not a whole number of at least 0"#),
        ("before=0", #"before="0" is not a whole number of at least 1"#),
        ("after", #"after="" is not a whole number of at least 0"#),
        ("after=1&before=5", "after and before together; send one of them"),
        ("since=3", #"unknown query parameter "since"; allowed: after, before, limit"#),
    ]

    @Test("the server refuses a query it would have to guess about", arguments: refusals)
    func refusal(query: String, message: String) {
        #expect(throws: WireRequestError(message)) { try MessagesQuery(items: Self.items(query)) }
    }
}
