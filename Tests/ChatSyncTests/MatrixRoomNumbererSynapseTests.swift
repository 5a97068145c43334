import ChatDomain
import ChatMatrix
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// The numbering rule against a real Synapse: two logins of alice (two device IDs) are two
/// devices of one account, `scripts/matrix-peer.py` is bob, and both devices must give every
/// message the same sequence without ever talking to each other, only through the anchor in
/// alice's room account data.
@Suite(.ownThreads, .enabled(if: Synapse.isInstalled, Comment(rawValue: Synapse.notInstalled)))
struct MatrixRoomNumbererSynapseTests {
    /// A homeserver with a room bob made and alice joined, and two of alice's devices.
    struct Devices {
        let synapse: Synapse
        let alice: Synapse.User
        let bob: Synapse.User
        let first: MatrixClient
        let second: MatrixClient
        let user: MatrixUserID

        static func start() async throws -> Devices {
            let synapse = try Synapse.start()
            let alice = try synapse.register("alice")
            let bob = try synapse.register("bob")
            let (first, login) = try await MatrixClientSynapseTests.login(synapse, alice, deviceID: "DEVICE1")
            let (second, other) = try await MatrixClientSynapseTests.login(synapse, alice, deviceID: "DEVICE2")
            #expect(login.deviceID != other.deviceID)
            return Devices(
                synapse: synapse, alice: alice, bob: bob, first: first, second: second, user: login.userID)
        }

        /// A new room of bob's that alice has joined.
        func room() async throws -> MatrixRoomID {
            let created = try synapse.peer(bob, ["create-room", "--invite", alice.userID])
            let room = try MatrixRoomID(try #require(created["room_id"] as? String))
            #expect(try await first.join(room.rawValue) == room)
            return room
        }

        /// Bob's `count` messages `PREFIX 1`…`PREFIX count` in `room`, their event IDs in order.
        func bobSends(_ room: MatrixRoomID, _ count: Int, prefix: String) throws -> [MatrixEventID] {
            let answer = try synapse.peer(bob, ["send-many", room.rawValue, String(count), "--prefix", prefix])
            return try (try #require(answer["event_ids"] as? [String])).map { try MatrixEventID($0) }
        }

        /// Runs a peer command as bob in `room` and returns the event ID it made.
        func bob(_ command: String, _ room: MatrixRoomID, _ arguments: String...) throws -> MatrixEventID {
            let answer = try synapse.peer(bob, [command, room.rawValue] + arguments)
            return try MatrixEventID(try #require(answer["event_id"] as? String))
        }

        func numberer(_ client: MatrixClient, _ room: MatrixRoomID, pageSize: Int) -> MatrixRoomNumberer {
            MatrixRoomNumberer(client: client, user: user, room: room, pageSize: pageSize)
        }
    }

    static let base = MatrixNumbering.anchorSequence

    /// Walks back from the oldest numbered message until the room's beginning, `count` at a time.
    static func walkToBeginning(
        _ numberer: MatrixRoomNumberer, from sequence: Int, _ eventID: MatrixEventID, count: Int,
        numbering: inout MatrixNumbering
    ) async throws -> [MatrixNumberedEvent] {
        var numbered: [MatrixNumberedEvent] = []
        var (oldest, oldestID) = (sequence, eventID)
        for _ in 0..<1_000 {
            let walk = try await numberer.walkBackward(from: oldest, oldestID, count: count, numbering: &numbering)
            numbered += walk.events
            if walk.reachedBeginning { return numbered }
            let last = try #require(walk.events.last)
            (oldest, oldestID) = (last.sequence, last.event.eventID)
        }
        throw Failure("the walk back never reached the room's beginning")
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test("two devices give every message the same sequence, edits counted once, redactions changing nothing")
    func twoDevicesAgree() async throws {
        let devices = try await Devices.start()
        let room = try await devices.room()
        let first = devices.numberer(devices.first, room, pageSize: 7)
        #expect(try await first.establishAnchor() == nil)
        let old = try devices.bobSends(room, 30, prefix: "m")

        // Device 1 is the first to sync the room: it writes the anchor at the newest message,
        // shows the newest 10 and then fills in older history down to the room's beginning.
        let anchor = try #require(try await first.establishAnchor())
        #expect(anchor == MatrixAnchor(eventID: old[29], sequence: Self.base))
        var numbering1 = MatrixNumbering()
        try numbering1.record(anchor.sequence, anchor.eventID)
        let newest = try await first.walkBackward(
            from: anchor.sequence, anchor.eventID, count: 9, numbering: &numbering1)
        #expect(newest.events.map(\.event.eventID) == Array(old[20..<29].reversed()))
        #expect(!newest.reachedBeginning)
        let oldest = try #require(newest.events.last)
        let older = try await Self.walkToBeginning(
            first, from: oldest.sequence, oldest.event.eventID, count: 8, numbering: &numbering1)
        #expect(older.map(\.event.eventID) == Array(old[0..<20].reversed()))
        let expectedOld = Dictionary(uniqueKeysWithValues: old.enumerated().map { (Self.base - 29 + $0, $1) })
        #expect(numbering1.eventIDs == expectedOld)

        // Later: five more messages, an edit of message 3, a redaction of message 7.
        let new = try devices.bobSends(room, 5, prefix: "n")
        let edit = try devices.bob("edit", room, old[2].rawValue, "m 3, edited")
        _ = try devices.bob("redact", room, old[6].rawValue)

        // Device 2 reads the anchor, and never writes one: the room's newest message is now the
        // edit, so an anchor of its own would have been there.
        let second = devices.numberer(devices.second, room, pageSize: 4)
        #expect(try await second.establishAnchor() == anchor)
        #expect(try await devices.first.anchor(user: devices.user, room: room) == anchor)
        var numbering2 = MatrixNumbering()
        try numbering2.record(anchor.sequence, anchor.eventID)
        let forward2 = try await second.walkForward(from: anchor.sequence, anchor.eventID, numbering: &numbering2)
        #expect(forward2.events.map(\.event.eventID) == new + [edit])
        let backward2 = try await Self.walkToBeginning(
            second, from: anchor.sequence, anchor.eventID, count: 100, numbering: &numbering2)
        #expect(backward2.count == 29)
        let redacted = try #require(backward2.first { $0.event.eventID == old[6] })
        #expect(redacted.sequence == Self.base - 23 && redacted.event.content == .redacted)

        // Device 1 catches up on the new messages the same way.
        let forward1 = try await first.walkForward(from: anchor.sequence, anchor.eventID, numbering: &numbering1)
        #expect(forward1.events.map(\.sequence) == Array(Self.base + 1...Self.base + 6))

        var expected = expectedOld
        for (offset, eventID) in (new + [edit]).enumerated() { expected[Self.base + 1 + offset] = eventID }
        #expect(numbering1.eventIDs == expected)
        #expect(numbering2.eventIDs == numbering1.eventIDs)
        #expect(numbering2.eventIDs.values.filter { $0 == edit }.count == 1)

        // Walking on from where the forward walk stopped finds nothing new.
        let again = try await devices.second.messages(
            room, from: forward2.token, direction: .forward, limit: 10, filter: MatrixNumbering.messagesFilter)
        #expect(again.chunk.isEmpty)
    }

    @Test("two devices writing the anchor at once both use the last written; one that used another is refused")
    func anchorRace() async throws {
        let devices = try await Devices.start()

        // Both read "no anchor", both write their own, both read back: the last write is the
        // anchor, for both.
        let room = try await devices.room()
        let first = devices.numberer(devices.first, room, pageSize: 10)
        let second = devices.numberer(devices.second, room, pageSize: 10)
        let m1 = try devices.bob("send", room, "one")
        #expect(try await first.readAnchor() == nil)
        #expect(try await second.readAnchor() == nil)
        let proposal1 = try #require(try await first.proposeAnchor())
        let m2 = try devices.bob("send", room, "two")
        let proposal2 = try #require(try await second.proposeAnchor())
        #expect(proposal1.eventID == m1 && proposal2.eventID == m2)
        try await devices.first.setAnchor(proposal1, user: devices.user, room: room)
        try await devices.second.setAnchor(proposal2, user: devices.user, room: room)
        #expect(try await first.readAnchor() == proposal2)
        #expect(try await second.readAnchor() == proposal2)

        // In another room device 1 reads its own anchor back before device 2 writes, and
        // numbers from it: the two devices now disagree on where the anchor is.
        let other = try await devices.room()
        let early = devices.numberer(devices.first, other, pageSize: 10)
        let late = devices.numberer(devices.second, other, pageSize: 10)
        let a = try devices.bob("send", other, "a")
        #expect(try await late.readAnchor() == nil)
        let used = try await early.writeAnchor(try #require(try await early.proposeAnchor()))
        #expect(used == MatrixAnchor(eventID: a, sequence: Self.base))
        let b = try devices.bob("send", other, "b")
        let won = try await late.writeAnchor(try #require(try await late.proposeAnchor()))
        #expect(won == MatrixAnchor(eventID: b, sequence: Self.base))
        var numbering = MatrixNumbering()
        try numbering.record(used.sequence, used.eventID)
        let walked = try await early.walkForward(from: used.sequence, used.eventID, numbering: &numbering)
        #expect(walked.events.map(\.sequence) == [Self.base + 1])

        // Device 1 meets the anchor device 2 wrote (the engine reads it again on every start
        // and whenever the room's account data changes in /sync). Its stored numbering has b at
        // another sequence, so the new anchor is refused, and so is every walk from it: the
        // engine stops numbering that room with "history differs" and keeps what it stored,
        // never renumbering it, and the person moves the store aside to sync a new one.
        let numbered = numbering
        let moved = MatrixNumberingError.eventMoved(b, numbered: Self.base + 1, found: Self.base)
        #expect(throws: moved) { try numbering.record(won.sequence, won.eventID) }
        await #expect(throws: MatrixRoomNumberer.Failure.numbering(moved)) {
            _ = try await early.walkBackward(from: won.sequence, won.eventID, count: 10, numbering: &numbering)
        }
        await #expect(throws: MatrixRoomNumberer.Failure.numbering(moved)) {
            _ = try await early.walkForward(from: won.sequence, won.eventID, numbering: &numbering)
        }
        #expect(numbering == numbered)
    }

    @Test("counting back numbers down to sequence 1, then says older history is out of reach")
    func outOfReach() async throws {
        let devices = try await Devices.start()
        let room = try await devices.room()
        let sent = try devices.bobSends(room, 5, prefix: "m")
        let numberer = devices.numberer(devices.first, room, pageSize: 10)
        var numbering = MatrixNumbering()
        try numbering.record(3, sent[4])
        await #expect(throws: MatrixRoomNumberer.Failure.numbering(.outOfReach(sent[1], older: true))) {
            _ = try await numberer.walkBackward(from: 3, sent[4], count: 10, numbering: &numbering)
        }
        #expect(numbering.eventIDs == [3: sent[4], 2: sent[3], 1: sent[2]])
    }

    @Test("a history longer than a page is numbered without a gap or a double, both ways")
    func longHistory() async throws {
        let devices = try await Devices.start()
        let room = try await devices.room()
        let sent = try devices.bobSends(room, 1_200, prefix: "m")
        let numberer = devices.numberer(devices.first, room, pageSize: 1_000)
        let anchor = try #require(try await numberer.establishAnchor())
        #expect(anchor.eventID == sent[1_199])

        // Sequence → event ID as the messages were sent: sent[i] is base − 1,199 + i.
        let oldest = Self.base - 1_199
        let expected = Dictionary(uniqueKeysWithValues: sent.enumerated().map { (oldest + $0, $1) })

        var back = MatrixNumbering()
        try back.record(anchor.sequence, anchor.eventID)
        let walk = try await numberer.walkBackward(
            from: anchor.sequence, anchor.eventID, count: 5_000, numbering: &back)
        #expect(walk.reachedBeginning)
        #expect(walk.events.count == 1_199)
        #expect(Self.misplaced(back, expected) == [])

        var forth = MatrixNumbering()
        try forth.record(oldest, sent[0])
        let forward = try await numberer.walkForward(from: oldest, sent[0], numbering: &forth)
        #expect(forward.events.count == 1_199)
        #expect(Self.misplaced(forth, expected) == [])
    }

    /// The first few sequences where `numbering` differs from `expected` (a gap, a double, a
    /// message out of place), as `sequence: found ≠ expected`: short enough to read when it fails.
    static func misplaced(_ numbering: MatrixNumbering, _ expected: [Int: MatrixEventID]) -> [String] {
        let sequences = Set(numbering.eventIDs.keys).union(expected.keys).sorted()
        let wrong = sequences.filter { numbering.eventIDs[$0] != expected[$0] }
        return wrong.prefix(5).map { sequence in
            let found = numbering.eventIDs[sequence].map(\.rawValue) ?? "nothing"
            let wanted = expected[sequence].map(\.rawValue) ?? "nothing"
            return "\(sequence): \(found) ≠ \(wanted)"
        }
    }
}
