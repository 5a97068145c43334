import ChatDomain
import ChatMatrix
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// ``MatrixClient`` against a real Synapse (``Synapse``: a throwaway homeserver per test), with
/// `scripts/matrix-peer.py` as the other member: what chatdir's client sends is what a homeserver
/// takes, and what it answers decodes.
@Suite(.ownThreads, .enabled(if: Synapse.isInstalled, Comment(rawValue: Synapse.notInstalled)))
struct MatrixClientSynapseTests {
    /// alice's client on `synapse`, logged in with `deviceID`.
    static func login(_ synapse: Synapse, _ user: Synapse.User, deviceID: String = "CHATDIR1") async throws
        -> (MatrixClient, MatrixLogin)
    {
        let anonymous = MatrixClient(
            server: ServerAddress(host: "127.0.0.1", port: UInt16(synapse.port)), accessToken: nil,
            timeout: .seconds(60))
        let login = try await anonymous.login(user: user.localpart, password: user.password, deviceID: deviceID)
        return (anonymous.authenticated(login.accessToken), login)
    }

    /// A homeserver where alice (this client, logged in) has joined a room bob (the peer) made.
    struct SharedRoom {
        let synapse: Synapse
        let bob: Synapse.User
        let client: MatrixClient
        let login: MatrixLogin
        let id: MatrixRoomID

        static func start() async throws -> SharedRoom {
            let synapse = try Synapse.start()
            let alice = try synapse.register("alice")
            let bob = try synapse.register("bob")
            let (client, login) = try await MatrixClientSynapseTests.login(synapse, alice)
            let created = try synapse.peer(bob, ["create-room", "--name", "Dinner", "--invite", alice.userID])
            let id = try MatrixRoomID(try #require(created["room_id"] as? String))
            #expect(try await client.join(id.rawValue) == id)
            return SharedRoom(synapse: synapse, bob: bob, client: client, login: login, id: id)
        }

        /// Runs `matrix-peer.py` as bob with `arguments`, the room's ID after the command's name.
        func bob(_ command: String, _ arguments: String...) throws {
            try synapse.peer(bob, [command, id.rawValue] + arguments)
        }
    }

    static func bodies(_ events: [MatrixEvent]) -> [String] {
        events.compactMap { event in
            if case .message(let content) = event.content { return content.body }
            return nil
        }
    }

    @Test("login keeps the device ID; the same txnId sends one event, also after a new login")
    func loginAndIdempotentSend() async throws {
        let synapse = try Synapse.start()
        let alice = try synapse.register("alice")
        let (client, login) = try await Self.login(synapse, alice)
        #expect(login.deviceID == "CHATDIR1" && login.userID.rawValue == alice.userID)
        #expect(try await client.versions().supports("v1.11"))
        let whoami = try await client.whoami()
        #expect(whoami.userID == login.userID && whoami.deviceID == "CHATDIR1")

        let room = try await client.createRoom(name: "Notes", invite: [])
        #expect(try await client.joinedRooms() == [room])
        #expect(try await client.anchor(user: login.userID, room: room) == nil)
        let content = MatrixMessageContent(body: "once", clientMessageID: .random())
        let first = try await client.send(room, transactionID: "txn-1", content: content)
        let again = try await client.send(room, transactionID: "txn-1", content: content)
        #expect(again == first)
        let (relogged, _) = try await Self.login(synapse, alice)
        #expect(try await relogged.send(room, transactionID: "txn-1", content: content) == first)
        let page = try await client.messages(room, from: nil, limit: 50)
        #expect(Self.bodies(page.chunk) == ["once"])
        let stored = try #require(page.chunk.first { $0.eventID == first })
        #expect(stored.content == .message(content))
        let anchor = MatrixAnchor(eventID: first, sequence: 5_000_000_000)
        try await client.setAnchor(anchor, user: login.userID, room: room)
        #expect(try await relogged.anchor(user: login.userID, room: room) == anchor)
    }

    @Test("the peer's messages arrive through /sync and /messages, paging back to the room's beginning")
    func syncAndHistory() async throws {
        let shared = try await SharedRoom.start()
        let (client, room) = (shared.client, shared.id)
        let first = try await client.sync(since: nil)
        try shared.bob("send-many", "25", "--prefix", "m")

        let next = try await client.sync(since: first.nextBatch)
        let timeline = try #require(next.joined.first { $0.id == room }?.timeline)
        #expect(Self.bodies(timeline.events).last == "m 25")
        #expect(timeline.events.allSatisfy { $0.sender.rawValue == shared.bob.userID })

        var seen: [String] = []
        var from: String? = nil
        var pages = 0
        while true {
            let page = try await client.messages(room, from: from, direction: .backward, limit: 10)
            seen += Self.bodies(page.chunk)
            pages += 1
            guard let end = page.end, pages < 100 else { break }
            from = end
        }
        #expect(seen == (1...25).reversed().map { "m \($0)" })
        #expect(pages >= 3)
    }

    /// Event content is the sender's: Synapse takes content nested 125 levels deep, and such an
    /// event must not make every member's /sync or /messages fail (the project's usual JSON
    /// nesting cap is 64).
    @Test("a message nested as deep as Synapse accepts decodes, and so do its neighbours")
    func deepContent() async throws {
        let shared = try await SharedRoom.start()
        let (client, room) = (shared.client, shared.id)
        let since = try await client.sync(since: nil).nextBatch
        let deep =
            #"{"msgtype":"m.text","body":"deep","x":"#
            + String(repeating: "[", count: 125) + String(repeating: "]", count: 125) + "}"
        try shared.bob("send", "before")
        try shared.bob("send", "", "--content", deep)
        try shared.bob("send", "after")

        var bodies: [String] = []
        var token = since
        for _ in 0..<20 where bodies.last != "after" {
            let sync = try await client.sync(since: token, wait: .seconds(30))
            token = sync.nextBatch
            bodies += sync.joined.filter { $0.id == room }.flatMap { Self.bodies($0.timeline.events) }
        }
        #expect(bodies == ["before", "deep", "after"])
        let page = try await client.messages(room, from: nil, limit: 3)
        #expect(Self.bodies(page.chunk) == ["after", "deep", "before"])
    }

    @Test("a long-poll /sync wakes on the peer's message")
    func longPollWakes() async throws {
        let shared = try await SharedRoom.start()
        let client = shared.client
        let since = try await client.sync(since: nil).nextBatch
        // A wait far longer than the test may take: only the message can end this request.
        let poll = Task { try await client.sync(since: since, wait: .seconds(600)) }
        try shared.bob("send", "are you there?")
        var woken = try await poll.value
        // The poll may have been answered by something before the message (bob's join, say).
        while !woken.joined.contains(where: { Self.bodies($0.timeline.events).contains("are you there?") }) {
            woken = try await client.sync(since: woken.nextBatch, wait: .seconds(600))
        }
        #expect(woken.nextBatch != since)
    }

    @Test("the peer's m.read receipt and typing arrive as ephemeral events")
    func receiptAndTyping() async throws {
        let shared = try await SharedRoom.start()
        let (client, room) = (shared.client, shared.id)
        let event = try await client.send(room, transactionID: "t1", content: MatrixMessageContent(body: "read me"))
        let since = try await client.sync(since: nil).nextBatch
        try shared.bob("receipt", event.rawValue)
        try shared.bob("typing", "on")
        try await client.typing(room, user: shared.login.userID, true)

        var receipts: [MatrixReceipt] = []
        var typing: [MatrixUserID] = []
        var token = since
        for _ in 0..<20 where receipts.isEmpty || typing.count < 2 {
            let sync = try await client.sync(since: token, wait: .seconds(30))
            token = sync.nextBatch
            for case .receipts(let found) in sync.joined.flatMap(\.ephemeral) { receipts += found }
            for case .typing(let users) in sync.joined.flatMap(\.ephemeral) { typing = users }
        }
        let bob = try MatrixUserID(shared.bob.userID)
        #expect(receipts.contains { $0.eventID == event && $0.type == "m.read" && $0.user == bob })
        #expect(Set(typing) == [bob, shared.login.userID])
    }

    @Test("an encrypted room's state is seen, and a 70,000-character body is rejected with the server's reason")
    func encryptionAndRefusal() async throws {
        let synapse = try Synapse.start()
        let alice = try synapse.register("alice")
        let bob = try synapse.register("bob")
        let (client, _) = try await Self.login(synapse, alice)
        let created = try synapse.peer(bob, ["create-room", "--encrypted", "--invite", alice.userID])
        let secret = try MatrixRoomID(try #require(created["room_id"] as? String))
        _ = try await client.join(secret.rawValue)
        let sync = try await client.sync(since: nil)
        let room = try #require(sync.joined.first { $0.id == secret })
        #expect(
            (room.state + room.timeline.events).contains {
                $0.content == .encryption(algorithm: "m.megolm.v1.aes-sha2")
            })

        let plain = try await client.createRoom(name: "Plain", invite: [])
        let huge = MatrixMessageContent(body: String(repeating: "x", count: 70_000))
        await #expect(throws: SyncError.rejected(status: 413, message: "M_TOO_LARGE: event too large")) {
            _ = try await client.send(plain, transactionID: "big", content: huge)
        }
    }
}
