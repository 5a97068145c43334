import ChatDomain
import ChatProtocol
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// A conversation started on this device (`outbox/create.json`): posted before its messages,
/// once however often it is sent, refused without harm to anything else.
@Suite(.ownThreads) struct ConversationStartTests {
    static func users(_ names: String...) throws -> [UserID] { try names.map { try UserID($0) } }

    @Test(
        "started offline with a message queued, one pass creates it and delivers the message once; bob's pass sees both"
    )
    func onePass() async throws {
        let server = try TestServer()
        let directory = try TemporaryDirectory()
        let alice = try clientStore("alice", in: directory)
        let dinner = try ConversationID("dinner")
        try alice.startConversation(dinner, title: "Dinner", members: try Self.users("bob", "carol"))
        try Outbox(try alice.existingConversation(dinner)).enqueue("who brings dessert?")
        let report = await (try engine(alice, server)).syncOnce()
        #expect(report.outcome == .complete, "\(report)")
        #expect(report.sent == 1 && report.conversations == 3, "\(report)")
        #expect(try alice.conversation(dinner).queuedCreation() == nil)
        #expect(try await server.messages("dinner", as: "carol").map(\.text) == ["who brings dessert?"])
        let bob = try clientStore("bob", in: directory)
        #expect(await (try engine(bob, server)).syncOnce().outcome == .complete)
        #expect(
            try bob.conversation(dinner).info()
                == ConversationInfo(title: "Dinner", members: try Self.users("alice", "bob", "carol")))
        #expect(try storedMessages(bob, "dinner").map(\.text) == ["who brings dessert?"])
    }

    @Test("a creation the server has already (its answer was lost) is taken as done: the 409 lists the same members")
    func sentTwice() async throws {
        let server = try TestServer()
        let directory = try TemporaryDirectory()
        let alice = try clientStore("alice", in: directory)
        let dinner = try ConversationID("dinner")
        let creation = try alice.startConversation(dinner, title: "Dinner", members: try Self.users("bob"))
        try Outbox(try alice.existingConversation(dinner)).enqueue("first")
        // The first attempt reached the server; its answer never came back.
        _ = try await APIClient(server: server.address, token: "alice-token").startConversation(
            NewConversation(id: dinner, title: creation.title, members: creation.members))
        let report = await (try engine(alice, server)).syncOnce()
        #expect(report.outcome == .complete, "\(report)")
        #expect(report.failed.isEmpty && report.sent == 1, "\(report)")
        #expect(try alice.conversation(dinner).queuedCreation() == nil)
        #expect(try await server.messages("dinner").map(\.text) == ["first"])
    }

    @Test(
        "an ID the server gave another conversation fails the creation; its messages stay pending and never go into the other one"
    )
    func takenByAnother() async throws {
        let server = try TestServer()
        let directory = try TemporaryDirectory()
        let dinner = try ConversationID("dinner")
        _ = try await APIClient(server: server.address, token: "carol-token").startConversation(
            NewConversation(id: dinner, title: "Carol's", members: try Self.users("alice", "carol")))
        let alice = try clientStore("alice", in: directory)
        try alice.startConversation(dinner, title: "Dinner", members: try Self.users("bob"))
        try Outbox(try alice.existingConversation(dinner)).enqueue("for bob only")
        let report = await (try engine(alice, server)).syncOnce()
        #expect(report.outcome == .messageRejected, "\(report)")
        #expect(
            report.failed.count == 1 && report.failed[0].contains("another conversation with this ID"),
            "\(report.failed)")
        #expect(try await server.messages("dinner", as: "carol").isEmpty)
        #expect(try alice.conversation(dinner).outbox().map(\.state) == [.pending])
        #expect(try alice.conversation(dinner).queuedCreation()?.state == .failed)
    }

    @Test(
        "a server without the endpoint (404 or 405): the creation fails with its reason, the messages wait, other conversations sync",
        arguments: [404, 405])
    func withoutEndpoint(status: Int) async throws {
        let server = try TestServer(faults: "no-start=\(status)")
        let directory = try TemporaryDirectory()
        let alice = try clientStore("alice", in: directory)
        let dinner = try ConversationID("dinner")
        let engine = try engine(alice, server)
        _ = await engine.syncOnce() // learns ab and group
        try alice.startConversation(dinner, title: "Dinner", members: try Self.users("bob"))
        try Outbox(try alice.existingConversation(dinner)).enqueue("waits")
        try Outbox(try alice.existingConversation(try ConversationID("ab"))).enqueue("goes out")
        let report = await engine.syncOnce()
        #expect(report.outcome == .messageRejected, "\(report)")
        #expect(report.sent == 1 && report.stillPending == 1, "\(report)")
        #expect(try await server.messages("ab").map(\.text) == ["goes out"])
        let creation = try #require(try alice.conversation(dinner).queuedCreation())
        #expect(creation.state == .failed)
        #expect(creation.error?.contains("this server cannot start conversations (\(status)") == true, "\(creation)")
        #expect(try alice.conversation(dinner).outbox().map(\.text) == ["waits"])
        // Failed stays failed: the next pass does not post it again, and still leaves the rest alone.
        let again = await engine.syncOnce()
        #expect(again.failed.isEmpty && again.stillPending == 1, "\(again)")
    }

    @Test(
        "live: alice's worker creates what she starts while it runs, and bob's worker hears of it and follows it",
        .timeLimit(.minutes(2)))
    func live() async throws {
        let server = try TestServer()
        let directory = try TemporaryDirectory()
        let aliceStore = try clientStore("alice", in: directory)
        let bobStore = try clientStore("bob", in: directory)
        let aliceLogs = LogLines()
        let bobLogs = LogLines()
        let aliceEngine = try engine(aliceStore, server)
        let bobEngine = try engine(bobStore, server)
        let aliceWorker = Task { await aliceEngine.runLive { aliceLogs.append($0) } }
        let bobWorker = Task { await bobEngine.runLive { bobLogs.append($0) } }
        defer {
            aliceWorker.cancel()
            bobWorker.cancel()
        }
        try await waitUntil("both workers caught up") {
            aliceLogs.lines.contains("caught up") && bobLogs.lines.contains("caught up")
        }
        try await waitUntil("bob's socket is registered") { server.server.liveSocketCount(for: try UserID("bob")) > 0 }

        let dinner = try ConversationID("dinner")
        try aliceStore.startConversation(dinner, title: "Dinner", members: try Self.users("bob"))
        // Before any message: bob's worker learns of it from the conversation event alone.
        try await waitUntil("bob's store has the conversation") {
            (try? bobStore.conversation(dinner).info()?.title) == "Dinner"
        }
        try Outbox(try aliceStore.existingConversation(dinner)).enqueue("live hello")
        try await waitUntil("the server has the message") {
            (try? await server.messages("dinner").map(\.text)) == ["live hello"]
        }
        try await waitUntil("bob's store has the conversation and the message") {
            (try? bobStore.conversation(dinner).info()?.title) == "Dinner"
                && (try? storedMessages(bobStore, "dinner").map(\.text)) == ["live hello"]
        }
        #expect(aliceLogs.lines.contains("dinner: started on the server"), "\(aliceLogs.lines)")
        #expect(try aliceStore.conversation(dinner).queuedCreation() == nil)
    }
}
