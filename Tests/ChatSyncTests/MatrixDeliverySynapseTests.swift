import ChatDomain
import ChatMatrix
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// One outbox message delivered to a real Synapse: carried under its client message ID, once
/// however often retried, and never into an encrypted room.
@Suite(.ownThreads, .enabled(if: Synapse.isInstalled, Comment(rawValue: Synapse.notInstalled)))
struct MatrixDeliverySynapseTests {
    @Test("a message is one event carrying its client message ID, however often delivered; plain rooms only")
    func deliver() async throws {
        let room = try await MatrixClientSynapseTests.SharedRoom.start()
        let id = ClientMessageID.random()
        #expect(try await room.client.isEncrypted(room.id) == false)
        let first = try await room.client.deliver(room.id, clientMessageID: id, text: "On my way")
        let again = try await room.client.deliver(room.id, clientMessageID: id, text: "On my way")
        #expect(first == again)
        let page = try await room.client.messages(room.id, from: nil, filter: #"{"types":["m.room.message"]}"#)
        let sent = page.chunk.filter { $0.eventID == first }
        #expect(sent.count == 1)
        #expect(page.chunk.count == 1, "one event for two deliveries")
        guard case .message(let content)? = sent.first?.content else {
            Issue.record("not a message: \(String(describing: sent.first))")
            return
        }
        #expect(content.body == "On my way" && content.clientMessageID == id && content.msgtype == "m.text")
    }

    @Test("an encrypted room is refused before anything is sent: a rejection naming it, no event")
    func encryptedRefused() async throws {
        let synapse = try Synapse.start()
        let alice = try synapse.register("alice")
        let bob = try synapse.register("bob")
        let (client, _) = try await MatrixClientSynapseTests.login(synapse, alice)
        let created = try synapse.peer(bob, ["create-room", "--encrypted", "--invite", alice.userID])
        let secret = try MatrixRoomID(try #require(created["room_id"] as? String))
        _ = try await client.join(secret.rawValue)
        #expect(try await client.isEncrypted(secret))
        do {
            _ = try await client.deliver(secret, clientMessageID: .random(), text: "plain text")
            Issue.record("delivered into an encrypted room")
        } catch {
            guard case .rejected(_, let message) = error else {
                Issue.record("not a rejection: \(error)")
                return
            }
            #expect(message.contains(secret.rawValue) && message.contains("end-to-end encrypted"), "\(message)")
        }
        let page = try await client.messages(secret, from: nil, filter: #"{"types":["m.room.message"]}"#)
        #expect(page.chunk.isEmpty)
    }
}
