import ChatTestSupport
import Testing

@testable import ChatDomain

@Suite(.ownThreads) struct PositionsTests {
    @Test(
        "merging positions only moves them forward",
        arguments: [
            ((5, 3), (4, 2), (5, 3)),
            ((5, 3), (7, 3), (7, 3)),
            ((5, 3), (5, 6), (6, 6)),
            ((0, 0), (0, 0), (0, 0)),
            ((10, 10), (0, 0), (10, 10)),
        ] as [((Int, Int), (Int, Int), (Int, Int))])
    func forwardOnly(old: (Int, Int), new: (Int, Int), expected: (Int, Int)) {
        let merged = MemberPosition(deliveredUpTo: old.0, readUpTo: old.1).merged(
            with: MemberPosition(deliveredUpTo: new.0, readUpTo: new.1))
        #expect(merged == MemberPosition(deliveredUpTo: expected.0, readUpTo: expected.1))
    }

    @Test("merge reports whether anything moved; absent members count as zero")
    func mergeReports() throws {
        let bob = try UserID("bob")
        var positions = Positions()
        #expect(positions[bob] == .zero)
        let moved = positions.merge(MemberPosition(deliveredUpTo: 3, readUpTo: 1), for: bob)
        let movedBack = positions.merge(MemberPosition(deliveredUpTo: 2, readUpTo: 1), for: bob)
        #expect(moved)
        #expect(!movedBack)
        #expect(positions[bob] == MemberPosition(deliveredUpTo: 3, readUpTo: 1))
    }

    @Test("positions are kept sorted by user ID whatever order members arrive in, and equal positions compare equal")
    func sortedEntries() throws {
        let names = ["mallory", "alice", "zoe", "bob", "carol", "alice2", "a", "Bob"]
        var byMerge = Positions()
        var dictionary: [UserID: MemberPosition] = [:]
        for (index, name) in names.enumerated() {
            let user = try UserID(name)
            let position = MemberPosition(deliveredUpTo: index + 1, readUpTo: index)
            byMerge.merge(position, for: user)
            dictionary[user] = position
        }
        let fromDictionary = Positions(dictionary)
        #expect(byMerge.entries.map(\.member.rawValue) == names.sorted())
        #expect(byMerge == fromDictionary)
        #expect(byMerge.hashValue == fromDictionary.hashValue)
        #expect(byMerge.members == dictionary)
        for (user, position) in dictionary { #expect(byMerge[user] == position) }
        #expect(byMerge[try UserID("nobody")] == .zero)
    }

    @Test("entries listed twice keep the last position, as a dictionary assignment would")
    func lastEntryWins() throws {
        let bob = try UserID("bob")
        let carol = try UserID("carol")
        let positions = Positions(entries: [
            Positions.Entry(member: carol, position: MemberPosition(deliveredUpTo: 9, readUpTo: 9)),
            Positions.Entry(member: bob, position: MemberPosition(deliveredUpTo: 5, readUpTo: 4)),
            Positions.Entry(member: carol, position: MemberPosition(deliveredUpTo: 2, readUpTo: 1)),
        ])
        #expect(positions.entries.map(\.member) == [bob, carol])
        #expect(positions[carol] == MemberPosition(deliveredUpTo: 2, readUpTo: 1))
        #expect(
            positions.merged(with: Positions([carol: MemberPosition(deliveredUpTo: 7, readUpTo: 0)]))[carol]
                == MemberPosition(deliveredUpTo: 7, readUpTo: 1))
    }

    @Test("contiguousHigh finds the end of the run without holes")
    func contiguous() {
        #expect(contiguousHigh(from: 0, in: [1, 2, 3, 5]) == 3)
        #expect(contiguousHigh(from: 0, in: [2, 3]) == 0)
        #expect(contiguousHigh(from: 418, in: [419, 420, 422]) == 420)
    }
}

/// A Matrix member's positions: Matrix has no delivered receipt, so a read one never raises
/// the delivered position a store writes (it stays 0), while a name's still does.
@Suite struct MatrixPositionsTests {
    @Test("reading raises a name's delivered position but not a Matrix user ID's")
    func readDoesNotClaimDelivery() throws {
        let matrix = try UserID("@bob:example.org")
        let name = try UserID("bob")
        var positions = Positions()
        let movedMatrix = positions.merge(MemberPosition(deliveredUpTo: 0, readUpTo: 1_000_000_005), for: matrix)
        let movedName = positions.merge(MemberPosition(deliveredUpTo: 0, readUpTo: 5), for: name)
        #expect(movedMatrix && movedName)
        #expect(positions[matrix] == MemberPosition(deliveredUpTo: 0, readUpTo: 1_000_000_005))
        #expect(positions[name] == MemberPosition(deliveredUpTo: 5, readUpTo: 5))
        let merged = positions.merged(
            with: Positions([matrix: MemberPosition(deliveredUpTo: 0, readUpTo: 1_000_000_009)]))
        #expect(merged[matrix] == MemberPosition(deliveredUpTo: 0, readUpTo: 1_000_000_009))
    }
}
