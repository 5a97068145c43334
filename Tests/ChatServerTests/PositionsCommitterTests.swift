import ChatDomain
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatServer

/// Delivered positions of many conversations made durable together (``PositionsCommitter``):
/// each POST is answered only once its `positions.json` is on disk, in the writer's bytes.
@Suite(.ownThreads) struct PositionsCommitterTests {
    static let bob = try! UserID("bob")
    static let alice = try! UserID("alice")

    /// A data directory at `path` of `count` conversations `c1`… of bob and alice, `messages`
    /// each, and no positions yet (every POST below moves one).
    static func makeData(at path: String, count: Int, messages: Int) throws {
        var generator = FixtureGenerator(userID: bob)
        generator.conversations = count
        generator.messagesPerConversation = messages
        generator.members = 2
        try generator.generate(at: path)
        try FileManager.default.removeItem(atPath: path + "/" + StoreLayout.manifest)
        for index in 1...count {
            try FileManager.default.removeItem(
                atPath: try conversation(path, index).directory + "/" + StoreLayout.positions)
        }
        try DataDirectory.create(
            at: path, users: UserTokens(["bob-token": bob, "alice-token": alice]), conversations: [:])
    }

    static func conversation(_ data: String, _ index: Int) throws -> Conversation {
        Conversation(storeRoot: data, id: try ConversationID("c\(index)"), segmentSize: DataDirectory.segmentSize)
    }

    /// The names in a conversation's directory that are not its own files (temp files left over).
    static func leftovers(_ conversation: Conversation) throws -> [String] {
        try Sys.listDirectory(conversation.directory).filter { $0.hasPrefix(".") }
    }

    static func postDelivered(_ client: TestHTTPClient, _ index: Int, upTo: Int) throws -> TestResponse {
        try client.request(
            "POST", "/v1/conversations/c\(index)/delivered", token: "bob-token", body: "{\"upToSequence\":\(upTo)}")
    }

    @Test(
        "delivered positions posted at once to 48 conversations are each answered at the position asked, written in the writer's bytes, and kept by a restart"
    )
    func manyAtOnce() throws {
        let directory = try TemporaryDirectory()
        let count = 48
        try Self.makeData(at: directory.path, count: count, messages: 30)
        let before = try (1...count).map { try Self.conversation(directory.path, $0).positions() ?? Positions() }
        var server = try ChatServer(configuration: ServerConfiguration(dataDirectory: directory.path, port: 0))
        try server.start()
        let port = server.port
        let answers = try concurrently(8) { worker -> [Int: Int] in
            let client = try TestHTTPClient(port: port)
            var answered: [Int: Int] = [:]
            for index in stride(from: worker + 1, through: count, by: 8) {
                let response = try Self.postDelivered(client, index, upTo: 20 + worker)
                guard response.status == 200, let position = response.json["deliveredUpTo"].int else { continue }
                answered[index] = position
            }
            return answered
        }
        server.stop()
        var answered: [Int: Int] = [:]
        for part in answers { answered.merge(part) { first, _ in first } }
        #expect(answered.count == count)
        for index in 1...count {
            let conversation = try Self.conversation(directory.path, index)
            let asked = 20 + (index - 1) % 8
            var expected = before[index - 1]
            expected.merge(MemberPosition(deliveredUpTo: asked, readUpTo: 0), for: Self.bob)
            #expect(answered[index] == expected[Self.bob].deliveredUpTo, "c\(index)")
            let bytes = try Array(
                Data(contentsOf: URL(fileURLWithPath: conversation.directory + "/" + StoreLayout.positions)))
            #expect(bytes == PositionsFile.encode(expected), "c\(index): \(String(decoding: bytes, as: UTF8.self))")
            #expect(try Self.leftovers(conversation) == [], "c\(index)")
        }

        server = try ChatServer(configuration: ServerConfiguration(dataDirectory: directory.path, port: 0))
        try server.start()
        defer { server.stop() }
        let client = try TestHTTPClient(port: server.port)
        for index in 1...count {
            let response = try client.request("GET", "/v1/conversations/c\(index)/receipts", token: "bob-token")
            #expect(response.status == 200)
            #expect(
                String(decoding: response.body, as: UTF8.self).contains("\"deliveredUpTo\":\(answered[index] ?? -1)"),
                "c\(index): \(String(decoding: response.body, as: UTF8.self))")
        }
    }

    @Test(
        "chatdir serve killed with SIGKILL while 8 clients post delivered positions to 48 conversations keeps every answered position after a restart"
    )
    func killedWhilePosting() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/server"
        let count = 48
        let messages = 60
        try Self.makeData(at: data, count: count, messages: messages)
        let server = try ServeProcess(["serve", "--data", data, "--port", "0"])
        let port = server.port
        // The highest position answered for each conversation.
        let acknowledged = Locked<[Int: Int]>([:])
        let answers = Locked(0)
        let stop = Locked(false)
        let group = DispatchGroup()
        for worker in 0..<8 {
            group.enter()
            Thread {
                defer { group.leave() }
                guard let client = try? TestHTTPClient(port: port) else { return }
                var upTo = 1
                while !stop.withLock({ $0 }), upTo <= messages {
                    for index in stride(from: worker + 1, through: count, by: 8) {
                        guard let response = try? Self.postDelivered(client, index, upTo: upTo), response.status == 200,
                            let position = response.json["deliveredUpTo"].int
                        else { return }
                        acknowledged.withLock { $0[index] = max($0[index] ?? 0, position) }
                        answers.withLock { $0 += 1 }
                    }
                    upTo += 1
                }
            }.start()
        }
        try waitUntil("300 positions are answered", timeout: .seconds(60)) { answers.withLock { $0 } >= 300 }
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        stop.withLock { $0 = true }
        group.wait()
        #expect(server.process.terminationReason == .uncaughtSignal)
        #expect(answers.withLock { $0 } < count * messages, "every position was posted before the kill: post more")

        // The restart sweeps what the killed batch left, and loads every file.
        let restarted = try ServeProcess(["serve", "--data", data, "--port", "0"])
        let client = try TestHTTPClient(port: restarted.port)
        let acked = acknowledged.withLock { $0 }
        #expect(acked.count == count)
        for index in 1...count {
            let response = try client.request("GET", "/v1/conversations/c\(index)/receipts", token: "bob-token")
            let stored = try Self.conversation(data, index).positions()?[Self.bob].deliveredUpTo ?? 0
            #expect(stored >= acked[index] ?? 0, "c\(index): answered \(acked[index] ?? 0), stored \(stored)")
            #expect(
                String(decoding: response.body, as: UTF8.self).contains("\"deliveredUpTo\":\(stored)"),
                "c\(index): \(String(decoding: response.body, as: UTF8.self))")
        }
        #expect(try restarted.stop(signal: SIGTERM).status == 0)
        for index in 1...count {
            #expect(try Self.leftovers(try Self.conversation(data, index)) == [], "c\(index)")
        }
    }
}
