import ChatDomain
import ChatServer
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// The grouped first sync (``SyncEngine/syncGrouped(_:deadline:report:)``): many conversations
/// in flight, their writes durable a group at a time, and the store ends as the one-at-a-time
/// pass leaves it.
@Suite(.ownThreads) struct ConversationGroupTests {
    static let bob = try! UserID("bob")
    static let alice = try! UserID("alice")

    /// A data directory at `path`: `count` one-message conversations `c1`… of bob and alice (the
    /// fixture generator's, some of bob's positions already delivered), `long` (650 messages:
    /// two pages), `mid` (150: two segments) and `empty`. Users bob and alice.
    static func makeServerData(at path: String, count: Int) async throws {
        var generator = FixtureGenerator(userID: bob)
        generator.conversations = count
        generator.messagesPerConversation = 1
        generator.members = 2
        try generator.generate(at: path)
        try FileManager.default.removeItem(atPath: path + "/" + StoreLayout.manifest)
        let info = ConversationInfo(title: "More", members: [bob, alice])
        try DataDirectory.create(
            at: path, users: UserTokens(["bob-token": bob, "alice-token": alice]),
            conversations: [
                try ConversationID("long"): info, try ConversationID("mid"): info, try ConversationID("empty"): info,
            ])
        let server = try ChatServer(configuration: ServerConfiguration(dataDirectory: path, port: 0))
        try server.start()
        defer { server.stop() }
        let api = APIClient(server: ServerAddress(host: "127.0.0.1", port: UInt16(server.port)), token: "alice-token")
        for (name, messages) in [("long", 650), ("mid", 150)] {
            for index in 1...messages {
                _ = try await api.post(try ConversationID(name), clientMessageID: .random(), text: "\(name) \(index)")
            }
        }
    }

    static func copy(_ from: String, to: String) throws {
        try FileManager.default.copyItem(atPath: from, toPath: to)
    }

    static func start(_ path: String, faults: String) throws -> ChatServer {
        let server = try ChatServer(
            configuration: ServerConfiguration(dataDirectory: path, port: 0, faults: try Faults(parsing: faults)))
        try server.start()
        return server
    }

    /// `request` until the server's own faults let it through.
    static func retried<T: Sendable>(_ request: () async throws -> T) async throws -> T {
        for _ in 0..<100 {
            do { return try await request() } catch let error as SyncError where error.isRetryable {}
        }
        return try await request()
    }

    /// Every file under the store's `conversations/`, by relative path; segments decoded, with
    /// the server's `sentAt` of `own` messages (given when each server accepted them) left out.
    static func contents(_ root: String, own: Set<ClientMessageID>) throws -> [String: String] {
        var files: [String: String] = [:]
        let base = root + "/" + StoreLayout.conversations
        guard let walker = FileManager.default.enumerator(atPath: base) else { return files }
        for case let relative as String in walker {
            let path = base + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                files[relative + "/"] = ""
                continue
            }
            let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
            if relative.contains("/messages/"), relative.hasSuffix(".json") {
                let messages = SegmentFile.decode(bytes, path: relative, range: nil).messages
                files[relative] = messages.map { message in
                    "\(message.sequence) \(message.clientMessageID) \(message.senderID) \(message.text) \(own.contains(message.clientMessageID) ? "-" : message.sentAt)"
                }.joined(separator: "\n")
            } else {
                files[relative] = String(decoding: bytes, as: UTF8.self)
            }
        }
        return files
    }

    @Test(
        "a grouped first sync of 303 conversations (long ones, outboxes, a read wish, a rejected message, 5xx faults) ends with the store the one-at-a-time pass leaves, and so does a second pass"
    )
    func groupedMatchesOneAtATime() async throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let count = 300
        try await Self.makeServerData(at: directory.file("server"), count: count)
        try Self.copy(directory.file("server"), to: directory.file("server-one"))

        // bob's store knows a few conversations already: queued messages, one the server
        // refuses, a read wish, one without its outbox/ directory.
        let prepared = try Store.create(at: directory.file("prepared"), manifest: Manifest(userID: Self.bob))
        var own: Set<ClientMessageID> = []
        do {
            let writer = try StoreWriter(store: prepared)
            for name in ["c5", "c17", "mid", "c9", "c30"] {
                try writer.saveInfo(
                    ConversationInfo(title: "Alice", members: [Self.bob, Self.alice]), for: try ConversationID(name))
            }
        }
        // As a clone from git has it: no empty outbox/.
        try FileManager.default.removeItem(atPath: prepared.conversation(try ConversationID("c30")).outboxDirectory)
        for name in ["c5", "c17", "mid"] {
            let outbox = Outbox(prepared.conversation(try ConversationID(name)))
            for index in 0..<3 { own.insert(try outbox.enqueue("from bob \(index) in \(name)").clientMessageID) }
        }
        own.insert(
            try Outbox(prepared.conversation(try ConversationID("c17"))).enqueue("NOPE, refused").clientMessageID)
        _ = try Outbox(prepared.conversation(try ConversationID("c9"))).wantRead(upTo: 1)
        try Self.copy(directory.file("prepared"), to: directory.file("grouped"))
        try Self.copy(directory.file("prepared"), to: directory.file("one"))

        let faults = "error5xx=0.05,reject-text=NOPE,seed=5"
        let groupedServer = try Self.start(directory.file("server"), faults: faults)
        defer { groupedServer.stop() }
        let oneServer = try Self.start(directory.file("server-one"), faults: faults)
        defer { oneServer.stop() }

        var groupedOptions = fastOptions
        groupedOptions.conversationsPerCommit = 64
        groupedOptions.conversationsInFlight = 6
        var oneOptions = fastOptions
        oneOptions.conversationsPerCommit = 1
        func pass(_ root: String, _ server: ChatServer, _ options: SyncEngine.Options) async throws -> SyncEngine.Report
        {
            let engine = try SyncEngine(
                store: try Store.open(at: root), server: ServerAddress(host: "127.0.0.1", port: UInt16(server.port)),
                token: "bob-token", options: options)
            return await engine.syncOnce()
        }

        let grouped = try await pass(directory.file("grouped"), groupedServer, groupedOptions)
        let one = try await pass(directory.file("one"), oneServer, oneOptions)
        #expect(grouped == one)
        #expect(grouped.conversations == count + 3)
        #expect(grouped.newMessages == count + 650 + 150)
        #expect(grouped.sent == 9)
        #expect(grouped.failed.count == 1 && grouped.failed.first?.contains("c17") == true, "\(grouped.failed)")
        #expect(grouped.problems.isEmpty, "\(grouped.problems)")
        #expect(grouped.stillPending == 0)
        let groupedFiles = try Self.contents(directory.file("grouped"), own: own)
        let oneFiles = try Self.contents(directory.file("one"), own: own)
        #expect(groupedFiles.count > 4 * count)
        #expect(groupedFiles.keys.sorted() == oneFiles.keys.sorted())
        for (path, text) in groupedFiles where oneFiles[path] != text {
            Issue.record("\(path) differs:\n\(text)\n--- one at a time:\n\(oneFiles[path] ?? "missing")")
        }

        // A second pass (both ways) stores bob's own messages' sequences as caught up and
        // delivered, the same way.
        let groupedAgain = try await pass(directory.file("grouped"), groupedServer, groupedOptions)
        let oneAgain = try await pass(directory.file("one"), oneServer, oneOptions)
        #expect(groupedAgain == oneAgain)
        #expect(
            groupedAgain.newMessages == 0 && groupedAgain.sent == 0 && groupedAgain.problems.isEmpty, "\(groupedAgain)")
        let groupedSecond = try Self.contents(directory.file("grouped"), own: own)
        #expect(groupedSecond == (try Self.contents(directory.file("one"), own: own)))
        #expect(groupedSecond != groupedFiles)

        // Every message once, every position where the server has it.
        let store = try Store.open(at: directory.file("grouped"))
        let api = APIClient(
            server: ServerAddress(host: "127.0.0.1", port: UInt16(groupedServer.port)), token: "bob-token")
        for conversation in try await Self.retried({ try await api.conversations() }) {
            let stored = try storedMessages(store, conversation.id.rawValue)
            #expect(
                stored.map(\.sequence) == Array(stride(from: 1, through: conversation.lastSequence, by: 1)),
                "\(conversation.id)")
            #expect(
                store.conversation(conversation.id).caughtUpMarker() == conversation.lastSequence, "\(conversation.id)")
            let positions = try await Self.retried { try await api.receipts(conversation.id) }
            #expect(
                positions[Self.bob].deliveredUpTo == conversation.lastSequence,
                "\(conversation.id) delivered on the server")
            #expect(
                try store.conversation(conversation.id).positions()?[Self.bob] == positions[Self.bob],
                "\(conversation.id) positions")
        }
        #expect(try store.conversation(try ConversationID("c9")).wantedReadPosition() == nil)
        #expect(StoreChecker.check(root: store.root).errors.isEmpty)
    }

    @Test(
        "chatdir sync SIGKILLed in the middle of 600 conversations leaves a store check accepts, and the next sync completes it"
    )
    func killedInTheMiddle() async throws {
        let directory = try TemporaryDirectory()
        let count = 600
        let data = try TemporaryDirectory(inMemory: true)
        try await Self.makeServerData(at: data.file("server"), count: count)
        let server = try Self.start(data.file("server"), faults: "")
        defer { server.stop() }
        let address = ServerAddress(host: "127.0.0.1", port: UInt16(server.port))
        let store = try Store.create(at: directory.file("bob"), manifest: Manifest(userID: Self.bob))
        func sync() throws -> TestProcess { try startChatdirSync(store: store, server: address, token: "bob-token") }
        let first = try sync()
        // Killed once some groups are stored, and before the last.
        try await waitUntil("a few groups are stored") {
            let caughtUp =
                (try? store.conversationIDs().filter { store.conversation($0).caughtUpMarker() != nil }.count) ?? 0
            return caughtUp >= 100 || !first.isRunning
        }
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        #expect(
            first.terminationReason == .uncaughtSignal, "the sync finished before it was killed: make the store bigger")
        let killed = StoreChecker.check(root: store.root)
        #expect(killed.errors.isEmpty, "\(killed.errors)")

        let second = try sync()
        second.waitUntilExit()
        #expect(second.terminationStatus == 0)
        let api = APIClient(server: address, token: "bob-token")
        let conversations = try await api.conversations()
        #expect(conversations.count == count + 3)
        for conversation in conversations {
            let stored = try storedMessages(store, conversation.id.rawValue)
            #expect(
                stored.map(\.sequence) == Array(stride(from: 1, through: conversation.lastSequence, by: 1)),
                "\(conversation.id)")
            #expect(
                store.conversation(conversation.id).caughtUpMarker() == conversation.lastSequence, "\(conversation.id)")
            #expect(
                try await api.receipts(conversation.id)[Self.bob].deliveredUpTo == conversation.lastSequence,
                "\(conversation.id)")
        }
        let report = StoreChecker.check(root: store.root)
        #expect(report.errors.isEmpty && report.warnings.isEmpty, "\(report.errors) \(report.warnings)")
    }

    @Test(
        "a pass whose budget ends before 53 conversations' turn names how many and the first three, not all 53, and writes every one's details"
    )
    func budgetSpentNamesBriefly() async throws {
        let directory = try TemporaryDirectory(inMemory: true)
        try await Self.makeServerData(at: directory.file("server"), count: 50)
        let server = try Self.start(directory.file("server"), faults: "")
        defer { server.stop() }
        let store = try Store.create(at: directory.file("bob"), manifest: Manifest(userID: Self.bob))
        let engine = try SyncEngine(
            store: store, server: ServerAddress(host: "127.0.0.1", port: UInt16(server.port)), token: "bob-token",
            options: fastOptions)
        let conversations = try await engine.discoverConversations(saving: false)
        #expect(conversations.count == 53)
        var report = SyncEngine.Report()
        try await engine.syncGrouped(conversations, deadline: PassDeadline(budget: .zero), report: &report)
        #expect(report.problems.count == 1, "\(report.problems)")
        let problem = report.problems.first ?? ""
        let first = conversations.prefix(3).map(\.id.rawValue)
        #expect(
            problem.contains(
                "before syncing 53 conversations (\(first.joined(separator: ", ")) and 50 more) to http://127.0.0.1:\(server.port)"
            ), "\(problem)")
        #expect(problem.utf8.count < 300, "\(problem)")
        for conversation in conversations {
            #expect(
                FileManager.default.fileExists(
                    atPath: store.conversation(conversation.id).directory + "/conversation.json"), "\(conversation.id)")
        }
    }

    @Test(
        "a token refused in the middle of a grouped first sync ends the pass, and every listed conversation still gets its details, as the one-at-a-time pass writes them up front"
    )
    func tokenRefusedMidway() async throws {
        // 40 empty conversations (nothing to fetch); the receipts of c11 on are refused, as when
        // the token is revoked while the pass runs: groups of 10, so the second group meets it.
        let list = (1...40).map {
            #"{"id":"c\#($0)","title":"Chat \#($0)","members":["bob","alice"],"lastSequence":0}"#
        }
        let server = try CannedServer { _, path in
            if path == "/v1/me" { return .json(200, #"{"userId":"bob"}"#) }
            if path == "/v1/conversations" { return .json(200, "{\"items\":[\(list.joined(separator: ","))]}") }
            if path.hasSuffix("/receipts"),
                let number = Int(path.split(separator: "/").dropFirst(2).first?.dropFirst() ?? ""), number <= 10
            {
                return .json(200, #"{"members":[]}"#)
            }
            return .json(401, #"{"error":"token revoked"}"#)
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory(inMemory: true)
        let store = try Store.create(at: directory.file("bob"), manifest: Manifest(userID: Self.bob))
        var options = fastOptions
        options.conversationsPerCommit = 10
        options.conversationsInFlight = 2
        let engine = try SyncEngine(
            store: store, server: ServerAddress(host: "127.0.0.1", port: server.port), token: "bob-token",
            options: options)
        let report = await engine.syncOnce()
        #expect(report.unauthorized, "\(report.problems)")
        #expect(
            report.problems.count == 1 && report.problems.first?.contains("token revoked") == true, "\(report.problems)"
        )
        #expect(server.seenRequests.filter { $0.hasSuffix("/receipts") }.count <= 20, "\(server.seenRequests)")
        for number in 1...40 {
            let info = try store.conversation(try ConversationID("c\(number)")).info()
            #expect(info?.title == "Chat \(number)", "c\(number)")
        }
    }

    @Test(
        "a short list of conversations is named whole",
        arguments: [
            ([String](), "no conversation"), (["c1"], "c1"), (["c1", "c2"], "c1 and c2"),
            (["c1", "c2", "c3"], "c1, c2 and c3"),
            (["c1", "c2", "c3", "c4"], "4 conversations (c1, c2, c3 and 1 more)"),
        ])
    func namedBriefly(names: [String], expected: String) throws {
        #expect(SyncError.namedBriefly(try names.map(ConversationID.init)) == expected)
    }
}
