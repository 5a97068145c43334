import ChatTestSupport
import Testing

@testable import ChatDomain

@Suite(.ownThreads) struct ReceiptsTests {
    static let me = try! UserID("alice")
    static let group = try! ["alice", "bob", "carol"].map(UserID.init)

    static func positions(_ values: [String: (Int, Int)]) -> Positions {
        Positions(
            Dictionary(
                uniqueKeysWithValues: values.map {
                    (try! UserID($0.key), MemberPosition(deliveredUpTo: $0.value.0, readUpTo: $0.value.1))
                }))
    }

    @Test(
        "the tick rule for a group of three, message at sequence 10",
        arguments: [
            ([:], ReceiptState.sent, "nobody has anything"),
            (["bob": (10, 10), "carol": (10, 10)], .read, "every other member read it"),
            (["bob": (12, 12), "carol": (10, 9)], .delivered, "carol has it but has not read it"),
            (["bob": (10, 10), "carol": (9, 9)], .sent, "carol does not have it yet"),
            (["bob": (10, 10)], .sent, "carol missing from the file counts as zero"),
            (["bob": (0, 11), "carol": (0, 11)], .read, "a read position implies delivery"),
            (["alice": (0, 0), "bob": (10, 10), "carol": (10, 10)], .read, "my own position does not matter"),
            (["bob": (10, 10), "carol": (10, 10), "mallory": (0, 0)], .read, "positions of non-members do not count"),
        ] as [([String: (Int, Int)], ReceiptState, String)])
    func groupTicks(_ values: [String: (Int, Int)], expected: ReceiptState, _ why: String) {
        let state = receiptState(sequence: 10, sender: Self.me, members: Self.group, positions: Self.positions(values))
        #expect(state == expected, "\(why)")
    }

    @Test("positions never loaded make the tick unknown, never 'not delivered'")
    func unknownWithoutPositions() {
        #expect(receiptState(sequence: 1, sender: Self.me, members: Self.group, positions: nil) == .unknown)
    }

    @Test("a conversation with no other member shows sent, not read")
    func alone() throws {
        #expect(receiptState(sequence: 1, sender: Self.me, members: [Self.me], positions: Positions()) == .sent)
    }
}
