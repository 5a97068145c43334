import ChatDomain
import ChatStore
import ChatSystem
import Testing

@testable import ChatCLI

@Suite struct HookFilterTests {
    let c1 = try! ConversationID("c1")
    let alice = try! UserID("alice")
    let bob = try! UserID("bob")

    func message(_ sequence: Int, from sender: UserID, _ text: String = "hi") -> Message {
        Message(
            sequence: sequence, clientMessageID: .random(), senderID: sender, text: text,
            sentAt: "2026-11-29T12:00:00.000Z")
    }

    func filter(_ kinds: Set<HookEvent.Kind>, positions: @escaping @Sendable () -> [UserID: Int] = { [:] })
        -> HookFilter
    {
        HookFilter(kinds: kinds, me: alice, readTitle: { "Title of \($0)" }, readPositions: { _ in positions() })
    }

    @Test("by default only other members' messages run the hook, with the details and the text")
    func othersOnly() {
        var hooks = filter([.message])
        #expect(hooks.events(for: .messageAdded(c1, message(1, from: alice))).isEmpty)
        let events = hooks.events(for: .messageAdded(c1, message(2, from: bob, "on my way")))
        #expect(
            events == [
                HookEvent(
                    kind: .message, conversation: c1, title: "Title of c1", sender: bob, sequence: 2, text: "on my way")
            ])
        #expect(
            events[0].environment(store: "/s") == [
                "CHATDIR_STORE": "/s", "CHATDIR_EVENT": "message", "CHATDIR_CONVERSATION": "c1",
                "CHATDIR_TITLE": "Title of c1",
                "CHATDIR_SENDER": "bob", "CHATDIR_SEQUENCE": "2",
            ])
    }

    @Test("mine is asked for on its own; message and mine together take both")
    func mine() {
        var hooks = filter([.mine])
        #expect(hooks.events(for: .messageAdded(c1, message(1, from: bob))).isEmpty)
        #expect(hooks.events(for: .messageAdded(c1, message(2, from: alice))).map(\.kind) == [.mine])
        var both = filter([.message, .mine])
        #expect(both.events(for: .messageAdded(c1, message(1, from: bob))).count == 1)
        #expect(both.events(for: .messageAdded(c1, message(2, from: alice))).count == 1)
    }

    @Test("a message seen again (a resync, a hole filled out of order) runs the hook once")
    func once() {
        var hooks = filter([.message])
        let three = message(3, from: bob)
        #expect(hooks.events(for: .messageAdded(c1, three)).count == 1)
        #expect(hooks.events(for: .resynced(c1)).isEmpty)
        #expect(hooks.events(for: .messageAdded(c1, three)).isEmpty)
        #expect(hooks.events(for: .messageAdded(c1, message(2, from: bob))).count == 1)
    }

    @Test("a failed message runs the hook once per attempt, with the reason; pending ones never")
    func failed() throws {
        var hooks = filter([.failed])
        var entry = OutboxEntry(
            ordinal: 1, clientMessageID: .random(), text: "too long", createdAt: "2026-11-29T12:00:00.000Z")
        #expect(hooks.events(for: .outboxAdded(c1, entry)).isEmpty)
        entry.state = .failed
        entry.attempts = 1
        entry.error = "rejected"
        let events = hooks.events(for: .outboxChanged(c1, entry))
        #expect(events.count == 1)
        #expect(events.first?.text == "too long")
        #expect(events.first?.environment(store: "/s")["CHATDIR_ERROR"] == "rejected")
        #expect(events.first?.environment(store: "/s")["CHATDIR_CLIENT_MESSAGE_ID"] == entry.clientMessageID.rawValue)
        #expect(hooks.events(for: .outboxChanged(c1, entry)).isEmpty)
        entry.attempts = 2
        #expect(hooks.events(for: .outboxChanged(c1, entry)).count == 1)
    }

    @Test("read runs for another member whose read position moved forward past where it started")
    func read() {
        let positions = Lock<[UserID: Int]>([bob: 3])
        var hooks = filter([.read], positions: { positions.withLock { $0 } })
        hooks.start(c1)
        #expect(hooks.events(for: .positionsChanged(c1)).isEmpty)
        positions.withLock { $0 = [bob: 5, alice: 9] }
        let events = hooks.events(for: .positionsChanged(c1))
        #expect(events.map(\.sender) == [bob])
        #expect(events.map(\.sequence) == [5])
        #expect(hooks.events(for: .positionsChanged(c1)).isEmpty)
    }

    @Test("a Matrix edit and a redacted record run no hook; watch names the edit and the redaction")
    func matrixEditsAndRedactions() throws {
        let bobMatrix = try UserID("@bob:example.org")
        let original = Message(
            sequence: 10, clientMessageID: .random(), senderID: bobMatrix, text: "see you at 7",
            sentAt: "2026-11-29T12:00:00.000Z", eventID: try EventID("$original"))
        let edit = Message(
            sequence: 11, clientMessageID: .random(), senderID: bobMatrix, text: "see you at 8",
            sentAt: "2026-11-29T12:01:00.000Z", eventID: try EventID("$edit"), replaces: try EventID("$original"))
        let redacted = try #require(original.redactedRecord)
        var hooks = filter([.message])
        #expect(hooks.events(for: .messageAdded(c1, original)).count == 1)
        #expect(hooks.events(for: .messageAdded(c1, edit)).isEmpty)
        #expect(hooks.events(for: .messageAdded(c1, redacted)).isEmpty)
        let me = try UserID("@alice:example.org")
        let editLine = try #require(WatchCommand.line(.messageAdded(c1, edit), me: me))
        #expect(editLine.hasPrefix(#"{"event":"edit","conversationId":"c1","sequence":11,"#), "\(editLine)")
        #expect(editLine.contains(#""text":"see you at 8","eventId":"$edit","replaces":"$original"}"#), "\(editLine)")
        let redactedLine = try #require(WatchCommand.line(.messageAdded(c1, redacted), me: me))
        #expect(redactedLine.hasPrefix(#"{"event":"message","#), "\(redactedLine)")
        #expect(redactedLine.hasSuffix(#""text":"","eventId":"$original","redacted":true}"#), "\(redactedLine)")
        // A wire v1 message line has none of the Matrix keys.
        let plain = try #require(WatchCommand.line(.messageAdded(c1, message(3, from: bob)), me: alice))
        #expect(!plain.contains("eventId") && !plain.contains("redacted") && !plain.contains("replaces"))
    }
}
