import Testing
import ChatTestSupport
@testable import ChatDomain

@Suite(.ownThreads) struct TimelineTests {
    let alice = try! UserID("alice")
    let bob = try! UserID("bob")

    func message(_ sequence: Int, _ sender: UserID, id: ClientMessageID = .random()) -> Message {
        Message(sequence: sequence, clientMessageID: id, senderID: sender, text: "m\(sequence)", sentAt: "2026-11-29T10:00:0\(sequence % 10).000Z")
    }

    func pending(_ ordinal: UInt64, id: ClientMessageID = .random(), failed: Bool = false) -> OutboxEntry {
        OutboxEntry(ordinal: ordinal, clientMessageID: id, text: "p\(ordinal)", createdAt: "2026-11-29T11:00:00.000Z",
                    state: failed ? .failed : .pending, error: failed ? "no" : nil)
    }

    @Test("rows follow the sequence, never the clock or arrival order")
    func sequenceOrder() {
        var late = message(2, bob)
        late.sentAt = "2020-01-01T00:00:00.000Z"
        let rows = timeline(messages: [message(3, alice), late, message(1, bob)], outbox: [], positions: nil, members: [alice, bob], me: alice)
        #expect(rows.map(\.sequence) == [1, 2, 3])
    }

    @Test("pending rows come after every sequenced row, oldest queue position first")
    func pendingLast() {
        let rows = timeline(messages: [message(1, bob), message(2, alice)],
                            outbox: [pending(30), pending(10, failed: true), pending(20)], positions: nil, members: [alice, bob], me: alice)
        #expect(rows.map(\.text) == ["m1", "m2", "p10", "p20", "p30"])
        #expect(rows[2].status == .failed(reason: "no"))
        #expect(rows[3].status == .pending)
    }

    @Test("an outbox entry already accepted is shown once, as the accepted message")
    func acceptedOnce() {
        let id = ClientMessageID.random()
        let rows = timeline(messages: [message(1, alice, id: id)], outbox: [pending(5, id: id)], positions: Positions(), members: [alice, bob], me: alice)
        #expect(rows.count == 1)
        #expect(rows[0].status == .outgoing(.sent))
    }

    @Test("incoming rows carry no tick; mine carry the receipt state")
    func statuses() {
        let positions = Positions([bob: MemberPosition(deliveredUpTo: 2, readUpTo: 1)])
        let rows = timeline(messages: [message(1, alice), message(2, alice), message(3, bob)], outbox: [], positions: positions, members: [alice, bob], me: alice)
        #expect(rows.map(\.status) == [.outgoing(.read), .outgoing(.delivered), .incoming])
    }
}
