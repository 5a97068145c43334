import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatServer

/// `--faults`: the syntax, the seeded decisions, and each fault as a client sees it.
@Suite(.ownThreads) struct FaultsTests {
    @Test(
        "--faults text parses to its canonical form",
        arguments: [
            (
                "drop-reply=0.2,error5xx=0.1,rate-limit=0.1:2,latency=5ms,live-close=10s,live-drop=0.1,live-dup=0.1,live-reorder=0.1,seed=7",
                "drop-reply=0.2,error5xx=0.1,rate-limit=0.1:2,latency=5ms,live-close=10000ms,live-drop=0.1,live-dup=0.1,live-reorder=0.1,seed=7"
            ),
            ("rate-limit=0.5", "rate-limit=0.5:1,seed=0"),
            ("latency=2s, seed=3", "latency=2000ms,seed=3"),
            ("", "none"),
            ("seed=9", "none"),
            ("live-hold=1000", "live-hold=1000,seed=0"),
        ])
    func parsing(text: String, canonical: String) throws {
        #expect(try Faults(parsing: text).description == canonical)
    }

    @Test(
        "bad --faults text names the pair and what is expected",
        arguments: [
            ("drop-reply", "is not key=value"),
            ("drop=0.1", "unknown fault \"drop\""),
            ("drop-reply=2", "a probability from 0 to 1"),
            ("error5xx=lots", "a probability from 0 to 1"),
            ("rate-limit=0.1:x", ":seconds"),
            ("latency=5", "a duration like 250ms or 10s"),
            ("live-close=0s", "above zero"),
            ("live-hold=0", "a number of events from 1 to 10000"),
            ("live-hold=many", "a number of events from 1 to 10000"),
            ("seed=-1", "a whole number"),
        ])
    func parseErrors(text: String, expected: String) {
        #expect {
            _ = try Faults(parsing: text)
        } throws: { error in
            String(describing: error).contains(expected)
        }
    }

    @Test("decisions depend only on seed, kind and index: p=0 never, p=1 always, p=0.3 about 30%")
    func seededDecisions() throws {
        let a = try Faults(parsing: "seed=7")
        let b = try Faults(parsing: "seed=8")
        let first = (0..<1000).map { a.strikes(.error5xx, probability: 0.3, index: UInt64($0)) }
        #expect(first == (0..<1000).map { a.strikes(.error5xx, probability: 0.3, index: UInt64($0)) })
        #expect(first != (0..<1000).map { b.strikes(.error5xx, probability: 0.3, index: UInt64($0)) })
        #expect(first != (0..<1000).map { a.strikes(.rateLimit, probability: 0.3, index: UInt64($0)) })
        #expect((250...350).contains(first.filter { $0 }.count))
        #expect((0..<100).allSatisfy { !a.strikes(.dropReply, probability: 0, index: $0) })
        #expect((0..<100).allSatisfy { a.strikes(.dropReply, probability: 1, index: $0) })
    }

    @Test("a server run with the same faults answers the same sequence of requests the same way")
    func reproducibleRun() throws {
        func statuses(_ faults: String) throws -> [Int] {
            let server = try TestServer(faults: try Faults(parsing: faults))
            let client = try server.client()
            return try (0..<30).map { _ in try client.request("GET", "/v1/me").status }
        }
        let first = try statuses("error5xx=0.3,rate-limit=0.2:1,seed=7")
        #expect(first == (try statuses("error5xx=0.3,rate-limit=0.2:1,seed=7")))
        #expect(Set(first) == [200, 429, 503])
    }

    @Test("drop-reply: the POST is committed, the connection closes without a reply, and a retry gets the same message")
    func dropReply() throws {
        let server = try TestServer(faults: try Faults(parsing: "drop-reply=1"))
        let client = try server.client()
        let id = UUID().uuidString
        try client.send(
            TestHTTPClient.requestBytes(
                "POST", "/v1/conversations/ab/messages", body: TestHTTPClient.messageBody(id: id, text: "lost reply")))
        #expect(throws: ConnectionClosed.self) { try client.readResponse() }
        let page = try server.client().request("GET", "/v1/conversations/ab/messages")
        #expect(page.json["items"].array.map { $0["clientMessageId"].string } == [id])

        // Without the fault, the retry with the same ID is 200 with the same message.
        try server.restart(faults: Faults.none)
        let retry = try server.client().post("ab", id: id, text: "lost reply")
        #expect(retry.status == 200)
        #expect(retry.json["sequence"].int == 1)
    }

    @Test("error5xx: 503 with an error body, and nothing is stored")
    func error5xx() throws {
        let server = try TestServer(faults: try Faults(parsing: "error5xx=1"))
        let response = try server.client().post("ab", id: UUID().uuidString, text: "refused")
        #expect(response.status == 503)
        #expect(response.json["error"].string?.contains("retry") == true)
        let files = try FileManager.default.contentsOfDirectory(
            atPath: server.directory.path + "/conversations/ab/messages")
        #expect(files.isEmpty)
    }

    @Test("rate-limit: 429 with the configured Retry-After")
    func rateLimit() throws {
        let server = try TestServer(faults: try Faults(parsing: "rate-limit=1:3"))
        let response = try server.client().request("GET", "/v1/me")
        #expect(response.status == 429)
        #expect(response.headers["Retry-After"] == "3")
    }

    @Test("latency: every reply waits at least the configured time")
    func latency() throws {
        let server = try TestServer(faults: try Faults(parsing: "latency=200ms"))
        let client = try server.client()
        let started = Clock.monotonicMilliseconds()
        #expect(try client.request("GET", "/v1/me").status == 200)
        #expect(Clock.monotonicMilliseconds() - started >= 200)
    }

    @Test("live-close: every live socket is closed with 1001 after the interval")
    func liveClose() throws {
        let server = try TestServer(faults: try Faults(parsing: "live-close=400ms"))
        let socket = try server.live("alice")
        let started = Clock.monotonicMilliseconds()
        #expect(try socket.closeCode() == 1001)
        #expect(Clock.monotonicMilliseconds() - started < 5000)
    }

    @Test("live-drop=1: events are not sent")
    func liveDrop() throws {
        let server = try TestServer(faults: try Faults(parsing: "live-drop=1"))
        let socket = try server.live("bob")
        #expect(try server.client().post("ab", id: UUID().uuidString, text: "dropped").status == 201)
        #expect(try socket.nextJSON(timeoutMilliseconds: 300) == nil)
    }

    @Test("live-hold=3: nothing is sent until three events wait, then all three, in order; later events as they come")
    func liveHold() throws {
        let server = try TestServer(faults: try Faults(parsing: "live-hold=3"))
        let socket = try server.live("bob")
        let client = try server.client()
        for text in ["one", "two"] { #expect(try client.post("ab", id: UUID().uuidString, text: text).status == 201) }
        #expect(try socket.nextJSON(timeoutMilliseconds: 300) == nil)
        #expect(try client.post("ab", id: UUID().uuidString, text: "three").status == 201)
        var sequences: [Int?] = []
        for _ in 0..<3 { sequences.append(try #require(try socket.nextJSON())["message"]?["sequence"].int) }
        #expect(sequences == [1, 2, 3])
        #expect(try client.post("ab", id: UUID().uuidString, text: "four").status == 201)
        #expect(try #require(try socket.nextJSON())["message"]?["sequence"].int == 4)
    }

    @Test("live-dup=1: every event arrives twice")
    func liveDuplicate() throws {
        let server = try TestServer(faults: try Faults(parsing: "live-dup=1"))
        let socket = try server.live("bob")
        _ = try server.client().post("ab", id: UUID().uuidString, text: "twice")
        let first = try #require(try socket.nextJSON())
        let second = try #require(try socket.nextJSON())
        #expect(first == second)
        #expect(first["message"]?["sequence"].int == 1)
    }

    @Test("live-reorder=1: each event is held back and sent after the next one")
    func liveReorder() throws {
        let server = try TestServer(faults: try Faults(parsing: "live-reorder=1"))
        let socket = try server.live("bob")
        let client = try server.client()
        _ = try client.post("ab", id: UUID().uuidString, text: "first")
        _ = try client.post("ab", id: UUID().uuidString, text: "second")
        #expect(try socket.nextJSON()?["message"]?["sequence"].int == 2)
        #expect(try socket.nextJSON()?["message"]?["sequence"].int == 1)
    }
}
