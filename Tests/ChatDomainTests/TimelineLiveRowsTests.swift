import ChatDomain
import ChatTestSupport
import Testing

/// The live view redraws from `timeline(...)` on every change; these pin down the two moments a
/// following screen sees most: a message moving from the outbox into its segment, and a tick moving.
@Suite(.ownThreads) struct TimelineLiveRowsTests {
    let alice = try! UserID("alice")
    let bob = try! UserID("bob")
    let id = try! ClientMessageID("6F1C0000-0000-4000-8000-000000000001")

    @Test("a message both in the outbox and in a segment is shown once, as the accepted row")
    func acceptedOutboxEntryShownOnce() {
        let message = Message(
            sequence: 7, clientMessageID: id, senderID: alice, text: "hi", sentAt: "2026-11-29T10:00:00.000Z")
        let entry = OutboxEntry(ordinal: 1, clientMessageID: id, text: "hi", createdAt: "2026-11-29T09:59:59.000Z")
        let rows = timeline(messages: [message], outbox: [entry], positions: nil, members: [alice, bob], me: alice)
        #expect(rows.count == 1)
        #expect(rows.first?.sequence == 7)
        #expect(rows.first?.status == .outgoing(.unknown))
    }

    @Test("the same row changes its tick when positions move, and keeps its place")
    func tickMovesInPlace() {
        let message = Message(
            sequence: 7, clientMessageID: id, senderID: alice, text: "hi", sentAt: "2026-11-29T10:00:00.000Z")
        let before = timeline(
            messages: [message], outbox: [], positions: Positions([bob: MemberPosition(deliveredUpTo: 6, readUpTo: 0)]),
            members: [alice, bob], me: alice)
        let after = timeline(
            messages: [message], outbox: [], positions: Positions([bob: MemberPosition(deliveredUpTo: 7, readUpTo: 7)]),
            members: [alice, bob], me: alice)
        #expect(before.map(\.clientMessageID) == after.map(\.clientMessageID))
        #expect(before.first?.status == .outgoing(.sent))
        #expect(after.first?.status == .outgoing(.read))
    }
}
