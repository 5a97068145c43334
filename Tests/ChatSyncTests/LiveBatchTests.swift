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
            batch.add([Self.m[1]], in: Self.ab), // a duplicate event's message again
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

    @Test("what the batch holds below a position follows every add, whatever order the sequences came in")
    func holdsAfterSeveralAdds() {
        var batch = LiveBatch()
        var added = [batch.add([Self.m[3]], in: Self.ab)]
        #expect(!batch.holds(in: Self.ab, atOrBelow: 2))
        added.append(batch.add([Self.m[2]], in: Self.ab))
        #expect(batch.holds(in: Self.ab, atOrBelow: 2))
        #expect(!batch.holds(in: Self.ab, atOrBelow: 1))
        added.append(batch.add([Self.m[1], Self.m[3]], in: Self.ab))
        #expect(batch.holds(in: Self.ab, atOrBelow: 1))
        #expect(batch.pending[Self.ab]?.ascending == [Self.m[1], Self.m[2], Self.m[3]])
        #expect(batch.pending[Self.ab]?.saves == 3)
        // A copy taken before more adds keeps what it had (adding works in place, not on shared state).
        let before = batch
        added.append(batch.add([Self.m[4]], in: Self.group))
        #expect(added == [true, true, true, true])
        #expect(before.order == [Self.ab])
        #expect(before.pending[Self.group] == nil)
        #expect(batch.order == [Self.ab, Self.group])
    }

    @Test("typing ends for each sender once per conversation, and a later typing event takes it back")
    func typingEnded() throws {
        var batch = LiveBatch()
        let bob = try UserID("bob")
        let carol = try UserID("carol")
        batch.endTyping(of: bob, in: Self.ab)
        #expect(!batch.isEmpty)
        batch.endTyping(of: bob, in: Self.ab)
        batch.endTyping(of: carol, in: Self.ab)
        batch.endTyping(of: bob, in: Self.group)
        #expect(batch.typingEnded[Self.ab] == [bob, carol])
        batch.resumeTyping(of: bob, in: Self.ab)
        #expect(batch.typingEnded[Self.ab] == [carol])
        #expect(batch.typingEnded[Self.group] == [bob])
        batch.resumeTyping(of: carol, in: try ConversationID("other"))
        #expect(batch.order.isEmpty)
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
