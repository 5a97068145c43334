import ChatDomain
import ChatTestSupport
import Testing

@testable import ChatStore

@Suite(.ownThreads) struct DeterminismTests {
    @Test(
        "the same messages saved in different orders and batches give byte-identical files", arguments: [1, 2, 3, 4, 5])
    func sameBytes(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let messages = (1...95).map { message($0, $0 % 3 == 0 ? alice : bob) }
        let finalPositions = Positions([
            bob: MemberPosition(deliveredUpTo: 90, readUpTo: 80),
            carol: MemberPosition(deliveredUpTo: 95, readUpTo: 95),
        ])

        let reference = try makeStore(in: directory, name: "a")
        let referenceWriter = try StoreWriter(store: reference)
        try referenceWriter.saveInfo(ConversationInfo(title: "T", members: [alice, bob, carol]), for: c1)
        try referenceWriter.save(messages, in: c1)
        try referenceWriter.mergePositions(finalPositions, in: c1)

        let other = try makeStore(in: directory, name: "b")
        let otherWriter = try StoreWriter(store: other)
        try otherWriter.saveInfo(ConversationInfo(title: "T", members: [carol, bob, alice]), for: c1)
        var random = SplitMix64(seed: seed)
        var shuffled = messages.shuffled(using: &random)
        shuffled += shuffled.prefix(10) // duplicates arrive too (socket and catch-up)
        while !shuffled.isEmpty {
            let count = min(shuffled.count, Int(random.next() % 17) + 1)
            try otherWriter.save(Array(shuffled.prefix(count)), in: c1)
            shuffled.removeFirst(count)
            // Positions arrive out of order as well; forward-only merging ends in the same place.
            try otherWriter.mergePositions(
                Positions([
                    bob: MemberPosition(deliveredUpTo: Int(random.next() % 90), readUpTo: Int(random.next() % 80))
                ]), in: c1)
        }
        try otherWriter.mergePositions(finalPositions, in: c1)

        let a = try filesUnder(reference.root).filter { !$0.key.hasPrefix("chatdir.json") }
        let b = try filesUnder(other.root).filter { !$0.key.hasPrefix("chatdir.json") }
        #expect(a.keys.sorted() == b.keys.sorted())
        #expect(a == b)
        #expect(a.keys.filter { $0.contains("/messages/") }.count == 11) // 10 segments and .newest
    }

    @Test("a duplicate is stored once; a contradicting message is kept out and reported")
    func savedByID() throws {
        let directory = try TemporaryDirectory()
        let writer = try StoreWriter(store: try makeStore(in: directory))
        let first = try writer.save([message(1), message(2)], in: c1)
        #expect(first.inserted.count == 2)
        var impostor = message(3)
        impostor.clientMessageID = message(1).clientMessageID
        let second = try writer.save([message(2), impostor], in: c1)
        #expect(second.inserted.isEmpty)
        #expect(second.duplicates == 1)
        #expect(second.conflicts == [impostor])
    }
}
