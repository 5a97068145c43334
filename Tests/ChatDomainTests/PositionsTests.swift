import Testing
import ChatTestSupport
@testable import ChatDomain

@Suite(.ownThreads) struct PositionsTests {
    @Test("merging positions only moves them forward", arguments: [
        ((5, 3), (4, 2), (5, 3)),
        ((5, 3), (7, 3), (7, 3)),
        ((5, 3), (5, 6), (6, 6)),
        ((0, 0), (0, 0), (0, 0)),
        ((10, 10), (0, 0), (10, 10)),
    ] as [((Int, Int), (Int, Int), (Int, Int))])
    func forwardOnly(old: (Int, Int), new: (Int, Int), expected: (Int, Int)) {
        let merged = MemberPosition(deliveredUpTo: old.0, readUpTo: old.1).merged(with: MemberPosition(deliveredUpTo: new.0, readUpTo: new.1))
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

    @Test("contiguousHigh finds the end of the run without holes")
    func contiguous() {
        #expect(contiguousHigh(from: 0, in: [1, 2, 3, 5]) == 3)
        #expect(contiguousHigh(from: 0, in: [2, 3]) == 0)
        #expect(contiguousHigh(from: 418, in: [419, 420, 422]) == 420)
    }
}
