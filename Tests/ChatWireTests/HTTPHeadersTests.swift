import ChatTestSupport
import Testing

@testable import ChatWire

@Suite(.ownThreads) struct HTTPHeadersTests {
    let headers: HTTPHeaders = [
        "Connection": "keep-alive, Upgrade",
        "Accept": "a",
        "accept": "b",
        "Upgrade": " WebSocket ,,",
    ]

    @Test("Lookup ignores case and returns the first of repeated fields")
    func lookup() {
        #expect(headers["ACCEPT"] == "a")
        #expect(headers.values(for: "Accept") == ["a", "b"])
        #expect(headers["Missing"] == nil)
    }

    @Test("Tokens are split on commas, trimmed and lowercased")
    func tokens() {
        #expect(headers.tokens(for: "connection") == ["keep-alive", "upgrade"])
        #expect(headers.containsToken("upgrade", for: "Connection"))
        #expect(headers.containsToken("websocket", for: "Upgrade"))
        #expect(!headers.containsToken("close", for: "Connection"))
    }

    @Test("Fields keep their order and the case of their names")
    func order() {
        #expect(headers.map(\.name) == ["Connection", "Accept", "accept", "Upgrade"])
    }

    @Test("Removing a name removes every field of that name")
    func remove() {
        var copy = headers
        copy.remove(name: "ACCEPT")
        #expect(copy.map(\.name) == ["Connection", "Upgrade"])
        copy.add(name: "Accept", value: "c")
        #expect(copy.values(for: "accept") == ["c"])
    }
}
