import ChatDomain
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatServer

/// What the data directory keeps across a restart, and what it looks like to shell tools.
@Suite(.ownThreads) struct RestartTests {
    @Test("a restart keeps every message, sequence, clientMessageId and position")
    func restartKeepsEverything() throws {
        let server = try TestServer()
        var client = try server.client()
        var ids: [String] = []
        for index in 1...7 {
            let id = UUID().uuidString
            ids.append(id)
            #expect(try client.post("group", id: id, text: "before restart \(index)").status == 201)
        }
        _ = try client.request(
            "POST", "/v1/conversations/group/read", token: TestData.token("bob"), body: #"{"upToSequence":5}"#)
        _ = try client.request(
            "POST", "/v1/conversations/group/delivered", token: TestData.token("carol"), body: #"{"upToSequence":7}"#)
        let messagesBefore = try client.request("GET", "/v1/conversations/group/messages").body
        let receiptsBefore = try client.request("GET", "/v1/conversations/group/receipts").body

        try server.restart()
        client = try server.client()
        #expect(try client.request("GET", "/v1/conversations/group/messages").body == messagesBefore)
        #expect(try client.request("GET", "/v1/conversations/group/receipts").body == receiptsBefore)
        // The ID is remembered: a retry after the restart is the same message, not a new one.
        let retry = try client.post("group", id: ids[2], text: "before restart 3")
        #expect(retry.status == 200)
        #expect(retry.json["sequence"].int == 3)
        // The next message continues the sequence.
        #expect(try client.post("group", id: UUID().uuidString, text: "after").json["sequence"].int == 8)
        // Positions stay put: a lower read does not move them back.
        #expect(
            try client.request(
                "POST", "/v1/conversations/group/read", token: TestData.token("bob"), body: #"{"upToSequence":2}"#
            ).text == #"{"readUpTo":5}"#)
    }

    @Test("the data directory is the store format: canonical segments and positions that the store codecs read back")
    func filesOnDisk() throws {
        let server = try TestServer()
        let client = try server.client()
        for index in 1...3 {
            _ = try client.post("ab", id: UUID().uuidString, text: "line \(index)")
        }
        _ = try client.request(
            "POST", "/v1/conversations/ab/read", token: TestData.token("bob"), body: #"{"upToSequence":2}"#)
        let conversation = Conversation(
            storeRoot: server.directory.path, id: try ConversationID("ab"), segmentSize: 100)
        let segment = try Sys.readFile(conversation.messagesDirectory + "/0000000001-0000000100.json")
        let decoded = SegmentFile.decode(segment, path: "segment", range: nil)
        #expect(decoded.problems.isEmpty)
        #expect(decoded.messages.map(\.text) == ["line 1", "line 2", "line 3"])
        #expect(SegmentFile.encode(decoded.messages) == segment)
        let positions = try Sys.readFile(conversation.directory + "/positions.json")
        #expect(String(decoding: positions, as: UTF8.self) == "{\n\"bob\":{\"deliveredUpTo\":2,\"readUpTo\":2}\n}\n")
        // No token is ever written into a conversation's files.
        #expect(!String(decoding: segment + positions, as: UTF8.self).contains("-token"))
    }

    @Test("more than one segment: message 101 opens 0000000101-0000000200.json and both read back after a restart")
    func segmentBoundary() throws {
        let server = try TestServer()
        let port = server.port
        let statuses = try concurrently(8) { worker in
            let client = try TestHTTPClient(port: port)
            return try (0..<14).map { index in
                try client.post("ab", id: UUID().uuidString, text: "\(worker)-\(index)").status
            }
        }
        #expect(statuses.joined().allSatisfy { $0 == 201 })
        let names = try FileManager.default.contentsOfDirectory(
            atPath: server.directory.path + "/conversations/ab/messages"
        ).sorted()
        #expect(names == ["0000000001-0000000100.json", "0000000101-0000000200.json"])
        try server.restart()
        let page = try server.client().request("GET", "/v1/conversations/ab/messages?after=0&limit=500")
        #expect(page.json["items"].array.compactMap { $0["sequence"].int } == Array(1...112))
    }

    @Test("a second server on the same data directory is refused while the first runs")
    func secondServerRefused() throws {
        let server = try TestServer()
        #expect {
            _ = try ChatServer(configuration: ServerConfiguration(dataDirectory: server.directory.path, port: 0))
        } throws: { error in
            (error as? ServerError)?.description.contains("in use by another chatdir serve") == true
        }
    }
}
