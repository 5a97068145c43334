import ChatDomain
import ChatServer
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// A read wish the server will not reach (past its newest message) is settled by the server's
/// answer, not kept: it is not posted again and does not mark later messages read.
@Suite(.ownThreads) struct ReadWishTests {
    let ab = try! ConversationID("ab")

    func post(_ text: String, as user: String, server: TestServer) async throws {
        _ = try await APIClient(server: server.address, token: "\(user)-token").post(
            ab, clientMessageID: .random(), text: text)
    }

    /// alice's store holding bob's three messages, with a wish to have read up to 99999
    /// written as an older chatdir would have written it.
    func storeWishingTooFar(_ directory: TemporaryDirectory, _ server: TestServer) async throws -> Store {
        for index in 1...3 { try await post("m\(index)", as: "bob", server: server) }
        let alice = try clientStore("alice", in: directory)
        _ = try await pass(alice, server)
        try #require(try storedMessages(alice, "ab").count == 3)
        let wish = alice.conversation(ab).outboxDirectory + "/read.json"
        try Data("{\"readUpTo\":99999}\n".utf8).write(to: URL(fileURLWithPath: wish))
        return alice
    }

    var readFile: (Store) -> String { { $0.conversation(ab).outboxDirectory + "/read.json" } }

    @Test(
        "sync posts a wish past the server's newest message once; the lower answer settles it and a later message is unread"
    )
    func syncSettles() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer()
        let alice = try await storeWishingTooFar(directory, server)
        _ = try await pass(alice, server)
        #expect(try alice.conversation(ab).positions()?[alice.userID].readUpTo == 3)
        #expect(!FileManager.default.fileExists(atPath: readFile(alice)), "the wish is settled, not kept for ever")
        try await post("after", as: "bob", server: server)
        _ = try await pass(alice, server)
        #expect(alice.conversation(ab).summary(me: alice.userID).unread == 1, "bob's new message is not read")
    }

    @Test(
        "a wish the server accepted is removed by that pass (docs/FORMAT.md: read.json is the position not yet accepted); an accepted one left over is removed too"
    )
    func acceptedWishRemoved() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer()
        for index in 1...3 { try await post("m\(index)", as: "bob", server: server) }
        let alice = try clientStore("alice", in: directory)
        _ = try await pass(alice, server)
        _ = try Outbox(alice.conversation(ab)).wantRead(upTo: 2)
        #expect(FileManager.default.fileExists(atPath: readFile(alice)))
        _ = try await pass(alice, server)
        #expect(try alice.conversation(ab).positions()?[alice.userID].readUpTo == 2)
        #expect(!FileManager.default.fileExists(atPath: readFile(alice)), "accepted, so no longer wanted")
        // A wish at or below the accepted position (left by an older chatdir) goes at the next pass.
        try Data("{\"readUpTo\":1}\n".utf8).write(to: URL(fileURLWithPath: readFile(alice)))
        _ = try await pass(alice, server)
        #expect(!FileManager.default.fileExists(atPath: readFile(alice)))
        #expect(try alice.conversation(ab).positions()?[alice.userID].readUpTo == 2)
    }

    @Test("the live worker settles a wish past the server's newest message instead of posting it again and again")
    func liveSettles() async throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer()
        let alice = try await storeWishingTooFar(directory, server)
        let live = try engine(alice, server)
        let task = Task { _ = await live.runLive(log: { _ in }) }
        defer { task.cancel() }
        try await waitUntil("the wish is settled") { !FileManager.default.fileExists(atPath: readFile(alice)) }
        #expect(try alice.conversation(ab).positions()?[alice.userID].readUpTo == 3)
    }

    @Test("a wish raised by another read while one was posted is kept")
    func raisedWishKept() throws {
        let directory = try TemporaryDirectory()
        let alice = try clientStore("alice", in: directory)
        let writer = try StoreWriter(store: alice)
        try writer.saveInfo(ConversationInfo(title: "t", members: [alice.userID, try UserID("bob")]), for: ab)
        try writer.save(
            (1...9).map {
                Message(
                    sequence: $0, clientMessageID: .random(), senderID: try! UserID("bob"), text: "m",
                    sentAt: "2026-11-29T10:00:00.000Z")
            }, in: ab)
        let outbox = Outbox(alice.conversation(ab))
        try outbox.wantRead(upTo: 7)
        try outbox.settleRead(posted: 5)
        #expect(try alice.conversation(ab).wantedReadPosition() == 7)
        try outbox.settleRead(posted: 7)
        #expect(try alice.conversation(ab).wantedReadPosition() == nil)
    }
}
