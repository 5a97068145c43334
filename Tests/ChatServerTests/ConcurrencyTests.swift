import ChatDomain
import ChatTestSupport
import Foundation
import Testing

/// Sequences under concurrent POSTs: from 1, without holes, one message per client message ID.
@Suite(.ownThreads) struct ConcurrencyTests {
    @Test("50 concurrent POSTs on 50 connections get sequences 1…50 exactly, each once")
    func fiftyConcurrentPosts() throws {
        let server = try TestServer()
        let port = server.port
        let results = try concurrently(50) { index in
            let client = try TestHTTPClient(port: port)
            let response = try client.post(
                "group", id: UUID().uuidString, text: "message \(index)", as: ["alice", "bob", "carol"][index % 3])
            return (response.status, response.json["sequence"].int ?? -1)
        }
        #expect(results.allSatisfy { $0.0 == 201 })
        #expect(results.map(\.1).sorted() == Array(1...50))

        let page = try server.client().request("GET", "/v1/conversations/group/messages?limit=500")
        #expect(page.json["items"].array.compactMap { $0["sequence"].int } == Array(1...50))
    }

    @Test(
        "the same clientMessageId POSTed from 20 connections at once is stored once: one 201, nineteen 200 with the same message"
    )
    func concurrentDuplicates() throws {
        let server = try TestServer()
        let port = server.port
        let id = UUID().uuidString
        let results = try concurrently(20) { _ in
            let response = try TestHTTPClient(port: port).post("ab", id: id, text: "only once")
            return (response.status, response.text)
        }
        #expect(results.filter { $0.0 == 201 }.count == 1)
        #expect(results.filter { $0.0 == 200 }.count == 19)
        #expect(Set(results.map(\.1)).count == 1)
        #expect(try server.client().request("GET", "/v1/conversations/ab/messages").json["items"].array.count == 1)
    }

    @Test("concurrent POSTs to two conversations keep each conversation's sequences dense")
    func twoConversations() throws {
        let server = try TestServer()
        let port = server.port
        let results = try concurrently(40) { index in
            let conversation = index % 2 == 0 ? "ab" : "group"
            let response = try TestHTTPClient(port: port).post(conversation, id: UUID().uuidString, text: "\(index)")
            return (conversation, response.json["sequence"].int ?? -1)
        }
        #expect(results.filter { $0.0 == "ab" }.map(\.1).sorted() == Array(1...20))
        #expect(results.filter { $0.0 == "group" }.map(\.1).sorted() == Array(1...20))
    }
}
