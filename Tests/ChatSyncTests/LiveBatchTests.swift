import ChatDomain
import Testing
@testable import ChatSync

/// What one batch of live events leaves to commit (LiveBatch.swift).
@Suite struct LiveBatchTests {
    static let m = ConversationLiveStateTests.m
    static let ab = try! ConversationID("ab")
    static let group = try! ConversationID("group")

    @Test("saves gather per conversation, in the order conversations first came, ascending, each message once")
    func gathers() {
        var batch = LiveBatch()
        #expect(batch.isEmpty)
        let added = [
            batch.add([Self.m[3]], in: Self.group),
            batch.add([Self.m[2], Self.m[1]], in: Self.ab),
            batch.add([], in: Self.ab),
            batch.add([Self.m[1]], in: Self.ab),  // a duplicate event's message again
        ]
        #expect(added == [true, true, true, true])
        #expect(batch.order == [Self.group, Self.ab])
        #expect(batch.pending[Self.ab]?.ascending == [Self.m[1], Self.m[2]])
        #expect(batch.pending[Self.ab]?.saves == 3)
        #expect(batch.pending[Self.group]?.saves == 1)
        // A receipt through 1 in ab must wait for the commit; one through 2 in group need not.
        #expect(batch.holds(in: Self.ab, atOrBelow: 1))
        #expect(!batch.holds(in: Self.group, atOrBelow: 2))
        #expect(!batch.holds(in: try! ConversationID("other"), atOrBelow: 9))
    }

    @Test("another record at a sequence the batch holds is refused whole, for the store's check after a commit")
    func conflict() {
        var batch = LiveBatch()
        var other = Self.m[1]
        other.text = "another text"
        let added = [
            batch.add([Self.m[1]], in: Self.ab),
            batch.add([Self.m[2], other], in: Self.ab),
            batch.add([other], in: Self.group),
        ]
        #expect(added == [true, false, true])
        #expect(batch.pending[Self.ab]?.ascending == [Self.m[1]])
        #expect(batch.pending[Self.ab]?.saves == 1)
    }
}
