import Testing

@testable import ChatMatrix

/// Paths and queries: every identifier and token percent-encoded as one segment.
@Suite struct MatrixEndpointTests {
    @Test("room, event, type and txnId segments are percent-encoded")
    func segments() throws {
        let room = try MatrixRoomID("!abc:example.org")
        let send = MatrixEndpoint.send(room, type: "m.room.message", transactionID: "a/b?c#d é")
        #expect(
            send.target == "/_matrix/client/v3/rooms/%21abc%3Aexample.org/send/m.room.message/a%2Fb%3Fc%23d%20%C3%A9")
        let receipt = MatrixEndpoint.receipt(room, type: "m.read", event: try MatrixEventID("$x+y/z"))
        #expect(receipt.path == "/_matrix/client/v3/rooms/%21abc%3Aexample.org/receipt/m.read/%24x%2By%2Fz")
        let typing = MatrixEndpoint.typing(room, user: try MatrixUserID("@bob:example.org"))
        #expect(typing.description == "PUT /_matrix/client/v3/rooms/%21abc%3Aexample.org/typing/%40bob%3Aexample.org")
        #expect(MatrixEndpoint.invite(room).description == "POST /_matrix/client/v3/rooms/%21abc%3Aexample.org/invite")
    }

    @Test("a txnId of . or .. cannot climb the path")
    func dots() throws {
        let room = try MatrixRoomID("!abc")
        #expect(MatrixEndpoint.send(room, type: "m.room.message", transactionID: "..").path.hasSuffix("/%2E%2E"))
        #expect(MatrixEndpoint.send(room, type: "m.room.message", transactionID: ".").path.hasSuffix("/%2E"))
    }

    @Test("queries: tokens encoded, absent values left out")
    func queries() throws {
        #expect(MatrixEndpoint.sync(since: nil, timeoutMilliseconds: 0).target == "/_matrix/client/v3/sync?timeout=0")
        #expect(
            MatrixEndpoint.sync(since: "s1_2&x=y", timeoutMilliseconds: 30_000, filter: #"{"a":1}"#).query
                == "since=s1_2%26x%3Dy&timeout=30000&filter=%7B%22a%22%3A1%7D")
        let messages = MatrixEndpoint.messages(try MatrixRoomID("!r"), from: "t1-2", direction: .backward, limit: 50)
        #expect(messages.target == "/_matrix/client/v3/rooms/%21r/messages?from=t1-2&dir=b&limit=50")
        let filtered = MatrixEndpoint.messages(
            try MatrixRoomID("!r"), from: nil, direction: .forward, limit: 5, filter: #"{"types":["m.room.message"]}"#)
        #expect(
            filtered.target
                == "/_matrix/client/v3/rooms/%21r/messages?dir=f&limit=5&filter=%7B%22types%22%3A%5B%22m.room.message%22%5D%7D"
        )
    }
}
