import ChatDomain
import ChatProtocol
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Glibc
import Testing

@testable import ChatSync

/// Nothing a server sends may lose a message or make a conversation unreadable: a history that
/// went backwards, pages that contradict themselves or the store, sequences and positions out
/// of range, endless pages, and local write failures in the middle of a pass.
@Suite(.ownThreads) struct TrustIntegrityTests {
    let ab = try! ConversationID("ab")
    static let sentAt = "2026-11-29T10:00:00.000Z"

    /// Posts `count` messages as `user` straight to the server.
    func post(_ count: Int, as user: String, to conversation: String = "ab", server: TestServer, prefix: String = "m")
        async throws
    {
        let api = APIClient(server: server.address, token: "\(user)-token")
        for index in 1...count {
            _ = try await api.post(
                try ConversationID(conversation), clientMessageID: .random(), text: "\(prefix)\(index)")
        }
    }

    /// Copies the server's data directory aside, to restart from later (a restored backup).
    func snapshot(_ server: TestServer, into directory: TemporaryDirectory) throws -> String {
        let copy = directory.file("server-copy-\(UUID().uuidString)")
        try FileManager.default.copyItem(atPath: server.directory.path, toPath: copy)
        return copy
    }

    /// Stops the server, puts `copy` in place of its data, and starts it again on the same port.
    func restore(_ server: TestServer, from copy: String) throws {
        server.stop()
        let data = server.directory.path
        for name in try FileManager.default.contentsOfDirectory(atPath: data) {
            try FileManager.default.removeItem(atPath: data + "/" + name)
        }
        for name in try FileManager.default.contentsOfDirectory(atPath: copy) {
            try FileManager.default.copyItem(atPath: copy + "/" + name, toPath: data + "/" + name)
        }
        try server.restart()
    }

    /// Alice's store holds ab 1–6, the server comes back with only 1–3, alice queues "hi".
    func resetServerScenario(_ directory: TemporaryDirectory) async throws -> (
        server: TestServer, alice: Store, hi: OutboxEntry, stored: [Message]
    ) {
        let server = try TestServer()
        try await post(3, as: "bob", server: server)
        let old = try snapshot(server, into: directory)
        try await post(3, as: "bob", server: server, prefix: "later")
        let alice = try clientStore("alice", in: directory)
        #expect(try await pass(alice, server).outcome == .complete)
        let stored = try storedMessages(alice, "ab")
        #expect(stored.map(\.sequence) == Array(1...6))
        try restore(server, from: old)
        #expect(try await server.messages("ab").count == 3)
        let hi = try Outbox(alice.conversation(ab)).enqueue("hi")
        return (server, alice, hi, stored)
    }

    // MARK: - Defect 1: a server whose history was reset

    @Test(
        "a server restarted from older data: the sent message stays in the outbox, exit 76, the store and other conversations are intact"
    )
    func historyWentBackwards() async throws {
        let directory = try TemporaryDirectory()
        let (server, alice, hi, stored) = try await resetServerScenario(directory)
        try await post(2, as: "bob", to: "group", server: server)
        let report = try await pass(alice, server)
        #expect(report.outcome == .contractBroken, "\(report)")
        #expect(report.sent == 0)
        #expect(
            report.problems.contains {
                $0.hasPrefix("ab: ") && $0.contains("the server's history differs from the store's at sequence 6")
                    && $0.contains("outbox keeps its messages")
            }, "\(report.problems)")
        // The other conversation went on.
        #expect(report.newMessages == 2)
        #expect(try storedMessages(alice, "group").count == 2)
        // Nothing of ab changed; "hi" is still queued, and the server never got it.
        #expect(try storedMessages(alice, "ab") == stored)
        #expect(try alice.conversation(ab).outbox().map(\.clientMessageID) == [hi.clientMessageID])
        #expect(try alice.conversation(ab).outbox().first?.state == .pending)
        #expect(try await server.messages("ab").count == 3)
    }

    @Test(
        "the live worker: a conversation whose server history went backwards does not keep the others from catching up")
    func liveCatchUpGoesOn() async throws {
        let directory = try TemporaryDirectory()
        let (server, alice, hi, stored) = try await resetServerScenario(directory)
        try await post(2, as: "bob", to: "group", server: server) // while alice is offline
        let live = try engine(alice, server)
        let logs = Lock<[String]>([])
        let task = Task { _ = await live.runLive(log: { line in logs.withLock { $0.append(line) } }) }
        defer { task.cancel() }
        try await waitUntil("group is caught up") { try storedMessages(alice, "group").count == 2 }
        try await waitUntil("the catch-up failure is logged") {
            logs.withLock { $0 }.contains { $0.contains("the server's history differs from the store's at sequence 6") }
        }
        #expect(try storedMessages(alice, "ab") == stored)
        #expect(try alice.conversation(ab).outbox().map(\.clientMessageID) == [hi.clientMessageID])
    }

    @Test(
        "a server that assigns an accepted message a sequence the store holds for another: the outbox file stays, nothing is saved"
    )
    func acceptedAtTakenSequence() async throws {
        let directory = try TemporaryDirectory()
        let (server, alice, hi, stored) = try await resetServerScenario(directory)
        // Straight to delivery, past the catch-up check: the server says "hi" is sequence 4.
        let engine = try engine(alice, server)
        await #expect(throws: SyncError.self) { _ = try await engine.drainOutbox(ab, patient: true) }
        #expect(try await server.messages("ab").last?.text == "hi")
        #expect(try storedMessages(alice, "ab") == stored)
        #expect(try alice.conversation(ab).outbox().map(\.clientMessageID) == [hi.clientMessageID])
        // And the next pass says why, keeps it, and exits 76.
        let report = await engine.syncOnce()
        #expect(report.outcome == .contractBroken)
        #expect(report.sent == 0)
        #expect(try alice.conversation(ab).outbox().map(\.clientMessageID) == [hi.clientMessageID])
    }

    @Test(
        "a server whose reset history grew past the store's: the different record at the stored point is found, nothing saved"
    )
    func historyDiffersAtTheStoredPoint() async throws {
        let directory = try TemporaryDirectory()
        let (server, alice, _, stored) = try await resetServerScenario(directory)
        try await post(5, as: "bob", server: server, prefix: "other")
        let report = try await pass(alice, server)
        #expect(report.outcome == .contractBroken)
        #expect(
            report.problems.contains { $0.contains("the server's history differs from the store's at sequence 6") },
            "\(report.problems)")
        #expect(try storedMessages(alice, "ab") == stored)
        #expect(try alice.conversation(ab).outbox().count == 1)
    }

    // MARK: - Defect 6: pages that contradict themselves or the store

    /// A canonical client message ID made from a number (upper-case hex UUID).
    static func id(_ number: Int) -> String {
        let digits = String(number)
        return "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits
    }

    static func record(_ sequence: Int, id: String? = nil, text: String? = nil) -> String {
        let id = id ?? Self.id(sequence)
        return
            #"{"clientMessageId":"\#(id)","senderId":"bob","text":"\#(text ?? "m\(sequence)")","sequence":\#(sequence),"sentAt":"\#(sentAt)"}"#
    }

    static func page(_ records: [String], hasMore: Bool = false) -> String {
        "{\"items\":[" + records.joined(separator: ",") + "],\"hasMore\":\(hasMore)}"
    }

    /// A canned server with one conversation c1 (alice, bob) whose last sequence is `last`, and
    /// `messages(after)` answering each page request.
    static func server(
        last: Int, receipts: String = #"{"members":[]}"#, messages: @escaping @Sendable (Int?) -> CannedServer.Reply
    ) throws -> CannedServer {
        try CannedServer { _, path in
            if path == "/v1/me" { return .json(200, #"{"userId":"alice"}"#) }
            if path == "/v1/conversations" {
                return .json(
                    200, #"{"items":[{"id":"c1","title":"c","members":["alice","bob"],"lastSequence":\#(last)}]}"#)
            }
            if path.contains("/messages") {
                let after = path.components(separatedBy: "after=").dropFirst().first.flatMap {
                    Int($0.prefix { $0.isNumber })
                }
                return messages(after)
            }
            if path.contains("/receipts") { return .json(200, receipts) }
            if path.contains("/delivered") { return .json(200, #"{"deliveredUpTo":0}"#) }
            return .json(404, #"{"error":"no"}"#)
        }
    }

    static func cannedEngine(_ store: Store, _ server: CannedServer, options: SyncEngine.Options = fastOptions) throws
        -> SyncEngine
    {
        try SyncEngine(store: store, server: try ServerAddress(server.url), token: "alice-token", options: options)
    }

    struct BadPage: Sendable, CustomTestStringConvertible {
        var name: String
        var records: [String]
        var expected: String
        var testDescription: String { name }
    }

    static let sameIDTwice = "6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3"
    static let badPages: [BadPage] = [
        BadPage(
            name: "one client ID at sequences 100 and 101 (two segment files)",
            records: (1...99).map { record($0) } + [record(100, id: sameIDTwice), record(101, id: sameIDTwice)],
            expected: "client message ID \(sameIDTwice) appears at sequences 100 and 101"),
        BadPage(
            name: "one sequence twice", records: [record(1), record(2), record(2, id: sameIDTwice)],
            expected: "sequence 2 appears twice"),
        BadPage(
            name: "sequences out of order", records: [record(1), record(3), record(2)],
            expected: "sequence 2 comes after 3"),
    ]

    @Test("a page that contradicts itself is refused whole; the conversation stays readable", arguments: badPages)
    func badPage(_ bad: BadPage) async throws {
        let server = try Self.server(last: 101) { _ in .json(200, Self.page(bad.records)) }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let store = try clientStore("alice", in: directory)
        let report = await (try Self.cannedEngine(store, server)).syncOnce()
        #expect(report.outcome == .contractBroken, "\(report)")
        #expect(
            report.problems.contains { $0.contains("broke the wire contract") && $0.contains(bad.expected) },
            "\(report.problems)")
        let c1 = store.conversation(try ConversationID("c1"))
        #expect(try c1.newestMessages(limit: 500).messages.isEmpty)
        #expect(try c1.segmentRanges().isEmpty)
    }

    @Test("a page with a client ID the store already holds at another sequence is refused; view still works")
    func idAgainstTheStore() async throws {
        let first = (1...100).map { Self.record($0) }
        let server = try Self.server(last: 101) { after in
            if after == nil || after == 0 { return .json(200, Self.page(first)) }
            // The stored point is 100: the page after 99 repeats it, then 101 reuses 50's ID.
            return .json(200, Self.page([Self.record(100), Self.record(101, id: Self.id(50))]))
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let store = try clientStore("alice", in: directory)
        let c1 = store.conversation(try ConversationID("c1"))
        var options = fastOptions
        options.pageSize = 100
        #expect(await (try Self.cannedEngine(store, server, options: options)).syncOnce().outcome == .complete)
        #expect(try c1.newestMessages(limit: 500).messages.count == 100)
        let report = await (try Self.cannedEngine(store, server, options: options)).syncOnce()
        #expect(report.outcome == .contractBroken)
        #expect(report.problems.contains { $0.contains("the store has it at sequence 50") }, "\(report.problems)")
        #expect(try c1.newestMessages(limit: 500).messages.map(\.sequence) == Array(1...100))
    }

    /// A store for alice holding c1 `sequences` (IDs from ``id(_:)``), its writer released.
    static func storeHolding(_ sequences: ClosedRange<Int>, in directory: TemporaryDirectory) throws -> Store {
        let store = try clientStore("alice", in: directory)
        let c1 = try ConversationID("c1")
        let writer = try StoreWriter(store: store)
        try writer.saveInfo(ConversationInfo(title: "c", members: [try UserID("alice"), try UserID("bob")]), for: c1)
        try writer.save(
            try sequences.map {
                Message(
                    sequence: $0, clientMessageID: try ClientMessageID(id($0)), senderID: try UserID("bob"),
                    text: "m\($0)", sentAt: sentAt)
            }, in: c1)
        return store
    }

    @Test("a live message whose client ID the store holds at another sequence is refused; view still works")
    func liveEventAgainstTheStore() async throws {
        let directory = try TemporaryDirectory()
        let store = try Self.storeHolding(1...100, in: directory)
        let c1 = try ConversationID("c1")
        let engine = try SyncEngine(
            store: store, server: ServerAddress(host: "127.0.0.1", port: 9), token: "alice-token", options: fastOptions)
        let event = Message(
            sequence: 101, clientMessageID: try ClientMessageID(Self.id(50)), senderID: try UserID("bob"),
            text: "again", sentAt: Self.sentAt)
        await #expect(throws: SyncError.self) { try await engine.apply(.message(c1, event)) }
        #expect(try store.conversation(c1).newestMessages(limit: 500).messages.map(\.sequence) == Array(1...100))
    }

    @Test("a history page whose client ID the store holds at another sequence is refused whole")
    func historyPageAgainstTheStore() async throws {
        let server = try Self.server(last: 200) { _ in
            .json(
                200, Self.page((1...99).map { Self.record($0) } + [Self.record(100, id: Self.id(150))], hasMore: false))
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let store = try Self.storeHolding(101...200, in: directory)
        let c1 = try ConversationID("c1")
        let engine = try Self.cannedEngine(store, server)
        await #expect(throws: SyncError.self) { _ = try await engine.history(c1, pages: nil) }
        #expect(try store.conversation(c1).newestMessages(limit: 500).messages.map(\.sequence) == Array(101...200))
    }

    // MARK: - Defect 7: sequences and positions the format cannot hold

    @Test("sequence 20,000,000,000 is refused at the decoder, naming the field and value; nothing stored")
    func hugeSequence() async throws {
        let server = try Self.server(last: 1) { _ in .json(200, Self.page([Self.record(20_000_000_000)])) }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let store = try clientStore("alice", in: directory)
        let report = await (try Self.cannedEngine(store, server)).syncOnce()
        #expect(report.outcome == .contractBroken)
        #expect(
            report.problems.contains { $0.contains("\"sequence\" is 20000000000, outside 1…9999900000") },
            "\(report.problems)")
        #expect(try store.conversation(try ConversationID("c1")).segmentRanges().isEmpty)
    }

    @Test("the largest sequence the format holds is stored where readers find it, for the largest segment size")
    func largestSequence() throws {
        #expect(WireDecoder.maxSequence == StoreLayout.maxSequence)
        for size in [1, 7, 100, Manifest.maxSegmentSize] {
            #expect(
                SegmentRange(fileName: SegmentRange(containing: StoreLayout.maxSequence, size: size).fileName) != nil,
                "size \(size)")
        }
        let directory = try TemporaryDirectory()
        let store = try clientStore("alice", in: directory)
        let c1 = try ConversationID("c1")
        let writer = try StoreWriter(store: store)
        let last = Message(
            sequence: StoreLayout.maxSequence, clientMessageID: .random(), senderID: try UserID("bob"), text: "last",
            sentAt: Self.sentAt)
        try writer.save([last], in: c1)
        #expect(try store.conversation(c1).newestMessages(limit: 1).messages == [last])
        let beyond = Message(
            sequence: StoreLayout.maxSequence + 1, clientMessageID: .random(), senderID: try UserID("bob"),
            text: "beyond", sentAt: Self.sentAt)
        #expect(throws: StoreError.self) { try writer.save([beyond], in: c1) }
        #expect(try store.conversation(c1).newestMessages(limit: 5).messages == [last])
    }

    @Test("readUpTo 10^9 when the newest message is 5 is clamped to 5, so later messages do not look read")
    func receiptBeyondTheHead() async throws {
        let server = try Self.server(
            last: 5, receipts: #"{"members":[{"userId":"bob","deliveredUpTo":1000000000,"readUpTo":1000000000}]}"#
        ) { _ in
            .json(200, Self.page((1...5).map { Self.record($0) }))
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let store = try clientStore("alice", in: directory)
        #expect(await (try Self.cannedEngine(store, server)).syncOnce().outcome == .complete)
        let positions = try store.conversation(try ConversationID("c1")).positions()
        #expect(positions?[try UserID("bob")] == MemberPosition(deliveredUpTo: 5, readUpTo: 5))
    }

    // MARK: - Defect 11: endless pages

    @Test("a server that always says hasMore: a one-pass sync stops at the head the server had when the pass began")
    func endlessHasMore() async throws {
        // One new message per page for ever (bounded at 2000 so the unfixed client ends too).
        let server = try Self.server(last: 3) { after in
            let next = (after ?? 0) + 1
            return .json(200, Self.page([Self.record(next)], hasMore: next < 2000))
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let store = try clientStore("alice", in: directory)
        let report = await (try Self.cannedEngine(store, server)).syncOnce()
        #expect(report.outcome == .complete, "\(report)")
        #expect(report.newMessages == 3)
        #expect(server.seenRequests.filter { $0.contains("/messages") }.count == 3)
    }

    @Test("a catch-up spends a page budget per conversation, says that more remain, and shows progress")
    func pageBudget() async throws {
        // hasMore for ever, as far as the budget can tell (bounded so the unfixed client ends too).
        let server = try Self.server(last: 1_000_000) { after in
            let next = (after ?? 0) + 1
            return .json(200, Self.page([Self.record(next)], hasMore: next < 3000))
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let store = try clientStore("alice", in: directory)
        var options = fastOptions
        options.catchUpPageBudget = 25
        options.progressEveryPages = 10
        let engine = try Self.cannedEngine(store, server, options: options)
        let lines = Lock<[String]>([])
        await engine.setProgress { progress in lines.withLock { $0.append(progress.description) } }
        let report = await engine.syncOnce()
        #expect(report.newMessages == 25)
        #expect(report.outcome == .incomplete)
        #expect(
            report.problems.contains {
                $0.contains("c1: stopped catching up after 25 pages at sequence 25; more remain")
            }, "\(report.problems)")
        #expect(
            lines.withLock { $0 } == [
                "c1: 10 messages caught up, 999990 to go", "c1: 20 messages caught up, 999980 to go",
            ])
    }

    @Test("a page with hasMore: true and no items ends the catch-up with a contract error")
    func emptyPageWithMore() async throws {
        let server = try Self.server(last: 3) { _ in .json(200, Self.page([], hasMore: true)) }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let store = try clientStore("alice", in: directory)
        let report = await (try Self.cannedEngine(store, server)).syncOnce()
        #expect(report.outcome == .contractBroken)
        #expect(report.problems.contains { $0.contains("no messages, yet \"hasMore\" is true") }, "\(report.problems)")
    }

    // MARK: - Durability and local failures

    @Test("a segment whose directory fsync failed is not durable: the outbox file stays, the error says fsync")
    func directoryFsyncFails() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer()
        let alice = try clientStore("alice", in: directory)
        #expect(try await pass(alice, server).outcome == .complete)
        let hi = try Outbox(alice.conversation(ab)).enqueue("hi")
        let messages = alice.conversation(ab).messagesDirectory
        FaultInjection.failFsync(of: messages)
        defer { FaultInjection.clear(messages) }
        let report = try await pass(alice, server)
        #expect(report.sent == 0)
        #expect(report.problems.contains { $0.contains("ab: fsync \(messages)") }, "\(report.problems)")
        #expect(try alice.conversation(ab).outbox().map(\.clientMessageID) == [hi.clientMessageID])
        // The segment file was renamed into place, but its rename is not known to be durable:
        // the next pass must not take the record as stored until the directory fsync succeeds.
        #expect(try await pass(alice, server).outcome == .storeFailed) // exit 74: the disk, not the server
        #expect(try alice.conversation(ab).outbox().map(\.clientMessageID) == [hi.clientMessageID])
        // Once the disk is fine again the message is recorded and only then leaves the outbox.
        FaultInjection.clear(messages)
        #expect(try await pass(alice, server).outcome == .complete)
        #expect(try storedMessages(alice, "ab").map(\.clientMessageID) == [hi.clientMessageID])
        #expect(try alice.conversation(ab).outbox().isEmpty)
    }

    @Test(
        "a write failing in one conversation ends that conversation's work, not the pass; the summary counts what was stored"
    )
    func writeFailsInOneConversation() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer()
        try await post(250, as: "bob", server: server)
        try await post(3, as: "bob", to: "group", server: server)
        let alice = try clientStore("alice", in: directory)
        let messages = alice.conversation(ab).messagesDirectory
        FaultInjection.failFsync(of: messages, after: 1, errno: .noSpace) // the first page is stored, the second fails
        defer { FaultInjection.clear(messages) }
        var options = fastOptions
        options.pageSize = 100
        let report = try await pass(alice, server, options: options)
        #expect(report.newMessages == 103, "\(report)")
        #expect(report.outcome == .storeFailed) // exit 74: the disk, not the server
        #expect(
            report.problems.contains { $0.hasPrefix("ab: ") && $0.contains("No space left on device") },
            "\(report.problems)")
        // The failed page's file may be in place (renamed, its directory fsync failed); the
        // first page is durably there either way.
        #expect(Array(try storedMessages(alice, "ab").map(\.sequence).prefix(100)) == Array(1...100))
        #expect(try storedMessages(alice, "group").count == 3)
    }

    // MARK: - Records that carry my outbox's client message IDs

    @Test(
        "a record with one of my queued client IDs is refused unless it is my message as queued, from every path: a POST's answer, a catch-up or history page, a live batch",
        arguments: ["accepted", "catch-up", "live messages"])
    func recordsCarryingMyQueuedIDs(_ path: String) async throws {
        let directory = try TemporaryDirectory()
        let alice = try clientStore("alice", in: directory)
        let store = try SyncStore(store: alice)
        let queued = try Outbox(alice.conversation(ab)).enqueue("see you at 8")
        let me = try UserID("alice")
        let bob = try UserID("bob")
        func record(_ sender: UserID, _ text: String) -> Message {
            Message(
                sequence: 1, clientMessageID: queued.clientMessageID, senderID: sender, text: text, sentAt: Self.sentAt)
        }
        func save(_ message: Message) async throws {
            if path == "accepted" {
                try await store.acceptFromServer([message], in: ab)
            } else {
                try await store.saveFromServer([message], in: ab, after: path == "catch-up" ? 0 : nil, what: path)
            }
        }
        for (lie, words) in [
            (record(bob, "see you at 8"), "as sent by bob"),
            (record(me, "I owe you 1000 EUR"), "with other text than the outbox's"),
        ] {
            do {
                try await save(lie)
                Issue.record("\(path): stored \(lie)")
            } catch let error as SyncError {
                #expect(
                    error.description.contains(
                        "the server's history differs from the store's at sequence 1: the server has my queued message \(queued.clientMessageID) there \(words)"
                    ), "\(error)")
                #expect(error.description.contains("this conversation's outbox keeps its messages"))
            }
            #expect(try storedMessages(alice, "ab").isEmpty)
            #expect(try alice.conversation(ab).outbox().map(\.clientMessageID) == [queued.clientMessageID])
        }
        // My message as I queued it is stored (and, accepted, leaves the outbox).
        try await save(record(me, "see you at 8"))
        #expect(try storedMessages(alice, "ab").map(\.text) == ["see you at 8"])
        #expect(try alice.conversation(ab).outbox().isEmpty == (path == "accepted"))
    }
}
