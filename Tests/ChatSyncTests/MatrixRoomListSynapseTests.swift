import ChatDomain
import ChatMatrix
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// The rooms alice has joined, read from one `/sync` of a real Synapse, become the conversations
/// of her store: folder, title, members, encryption.
@Suite(.ownThreads, .enabled(if: Synapse.isInstalled, Comment(rawValue: Synapse.notInstalled)))
struct MatrixRoomListSynapseTests {
    @Test("joined rooms list with their titles by name, alias or members; encrypted marked; invites left out")
    func joinedRooms() async throws {
        let synapse = try Synapse.start()
        let alice = try synapse.register("alice")
        let bob = try synapse.register("bob")
        let carol = try synapse.register("carol")
        let (client, _) = try await MatrixClientSynapseTests.login(synapse, alice)
        func room(_ arguments: [String]) throws -> String {
            try #require(try synapse.peer(bob, ["create-room"] + arguments)["room_id"] as? String)
        }
        let dinner = try room(["--name", "Dinner", "--invite", alice.userID])
        let lobby = try room(["--alias", "lobby", "--invite", alice.userID])
        let secret = try room(["--encrypted", "--invite", alice.userID, "--invite", carol.userID])
        let invitedOnly = try room(["--name", "Not joined", "--invite", alice.userID])
        for id in [dinner, lobby, secret] {
            _ = try await client.join(id)
        }
        _ = try synapse.peer(carol, ["join", secret])

        let me = try UserID(alice.userID)
        let listed = try await client.roomStates().map { try $0.conversation(me: me) }
        let byRoom = Dictionary(uniqueKeysWithValues: listed.map { ($0.roomID ?? "", $0) })
        #expect(Set(byRoom.keys) == [dinner, lobby, secret], "joined rooms only, not \(invitedOnly)")
        let users = try [alice, bob, carol].map { try UserID($0.userID) }

        let first = try #require(byRoom[dinner])
        #expect(first.id == ConversationID.matrixRoom(dinner))
        #expect(first.title == "Dinner")
        #expect(first.members == [users[0], users[1]])
        #expect(!first.encrypted)
        #expect(byRoom[lobby]?.title == "#lobby:localhost")
        let third = try #require(byRoom[secret])
        #expect(third.encrypted)
        #expect(third.title == "@bob:localhost, @carol:localhost")
        #expect(third.members == users)
        #expect(third.info.roomID == secret && third.info.encrypted)
    }
}
