import ChatStore
import ChatTestSupport
import Testing

@testable import ChatDomain

@Suite(.ownThreads) struct TimelineTests {
    let alice = try! UserID("alice")
    let bob = try! UserID("bob")

    func message(_ sequence: Int, _ sender: UserID, id: ClientMessageID = .random()) -> Message {
        Message(
            sequence: sequence, clientMessageID: id, senderID: sender, text: "m\(sequence)",
            sentAt: "2026-11-29T10:00:0\(sequence % 10).000Z")
    }

    func pending(_ ordinal: UInt64, id: ClientMessageID = .random(), failed: Bool = false) -> OutboxEntry {
        OutboxEntry(
            ordinal: ordinal, clientMessageID: id, text: "p\(ordinal)", createdAt: "2026-11-29T11:00:00.000Z",
            state: failed ? .failed : .pending, error: failed ? "no" : nil)
    }

    @Test("rows follow the sequence, never the clock or arrival order")
    func sequenceOrder() {
        var late = message(2, bob)
        late.sentAt = "2020-01-01T00:00:00.000Z"
        let rows = timeline(
            messages: [message(3, alice), late, message(1, bob)], outbox: [], positions: nil, members: [alice, bob],
            me: alice)
        #expect(rows.map(\.sequence) == [1, 2, 3])
    }

    @Test("pending rows come after every sequenced row, oldest queue position first")
    func pendingLast() {
        let rows = timeline(
            messages: [message(1, bob), message(2, alice)],
            outbox: [pending(30), pending(10, failed: true), pending(20)], positions: nil, members: [alice, bob],
            me: alice)
        #expect(rows.map(\.text) == ["m1", "m2", "p10", "p20", "p30"])
        #expect(rows[2].status == .failed(reason: "no"))
        #expect(rows[3].status == .pending)
    }

    @Test("an outbox entry already accepted is shown once, as the accepted message")
    func acceptedOnce() {
        let id = ClientMessageID.random()
        let rows = timeline(
            messages: [message(1, alice, id: id)], outbox: [pending(5, id: id)], positions: Positions(),
            members: [alice, bob], me: alice)
        #expect(rows.count == 1)
        #expect(rows[0].status == .outgoing(.sent))
    }

    @Test("incoming rows carry no tick; mine carry the receipt state")
    func statuses() {
        let positions = Positions([bob: MemberPosition(deliveredUpTo: 2, readUpTo: 1)])
        let rows = timeline(
            messages: [message(1, alice), message(2, alice), message(3, bob)], outbox: [], positions: positions,
            members: [alice, bob], me: alice)
        #expect(rows.map(\.status) == [.outgoing(.read), .outgoing(.delivered), .incoming])
    }
}

@Suite struct RepeatedClientIDsTests {
    /// The first of each ID in order is kept, as a `Set` filled in order would keep it.
    static func reference(_ ids: [ClientMessageID]) -> [Bool] {
        var seen = Set<ClientMessageID>()
        return ids.map { !seen.insert($0).inserted }
    }

    @Test("every position whose ID an earlier one has, and only those, over random pages with repeats")
    func sameAsASet() {
        var generator = SplitMix64(seed: 16)
        for round in 0..<300 {
            let distinct = (0..<(1 + round % 40)).map { _ in ClientMessageID.random(using: &generator) }
            let ids = (0..<(round % 70)).map { _ in distinct[Int(generator.next() % UInt64(distinct.count))] }
            let expected = Self.reference(ids)
            #expect(repeatedClientIDs(count: ids.count) { ids[$0] } == expected, "round \(round)")
            // Every hash equal (a collision made on purpose), or only a few values: the same answer.
            #expect(
                repeatedClientIDs(count: ids.count, hash: { _ in 7 }) { ids[$0] } == expected,
                "round \(round), one hash")
            #expect(
                repeatedClientIDs(count: ids.count, hash: { $0.fnv1a % 3 }) { ids[$0] } == expected,
                "round \(round), three hashes")
        }
    }

    @Test("a repeat among other IDs of the same hash is found, whatever the order between them")
    func repeatInsideACollision() throws {
        let a = try ClientMessageID("00000000-0000-4000-8000-00000000000A")
        let b = try ClientMessageID("00000000-0000-4000-8000-00000000000B")
        let c = try ClientMessageID("00000000-0000-4000-8000-00000000000C")
        for ids in [[a, b, a], [b, a, c, a], [a, b, c, b, a]] {
            #expect(repeatedClientIDs(count: ids.count, hash: { _ in 0 }) { ids[$0] } == Self.reference(ids), "\(ids)")
        }
        #expect(repeatedClientIDs(count: 0) { _ in a } == [])
        #expect(repeatedClientIDs(count: 1) { _ in a } == [false])
    }

    @Test("the hash is of the ID's bytes: equal IDs hash alike, and it is FNV-1a's for a short text")
    func hash() throws {
        let id = try ClientMessageID("C14C9B80-A0B1-4C2D-8E3F-001122334455")
        #expect(id.fnv1a == (try ClientMessageID("C14C9B80-A0B1-4C2D-8E3F-001122334455")).fnv1a)
        #expect(id.fnv1a != (try ClientMessageID("c14c9b80-a0b1-4c2d-8e3f-001122334455")).fnv1a)
    }
}
