import ChatDomain
import ChatSystem

/// Makes deterministic fixture stores: the same parameters give byte-identical files, so testers
/// can make 10 or 1,000,000 messages in one command and compare runs with `diff -r`.
///
/// Messages follow the benchmark's generator (BENCHMARKS.md, "The messages"): member `s % count` sends
/// sequence `s`, sentAt is 1,700,000,000 s + `s`, and the text is 4 to 16 words of a fixed list.
public struct FixtureGenerator: Sendable {
    public var userID: UserID
    public var conversations = 3
    public var messagesPerConversation = 50
    /// Members per conversation, the user included: 2 makes one-to-one chats, more makes groups.
    public var members = 2
    public var pendingPerConversation = 0
    public var failedPerConversation = 0
    public var seed: UInt64 = 42
    public var segmentSize = StoreLayout.defaultSegmentSize

    public init(userID: UserID) {
        self.userID = userID
    }

    public static let words =
        ("on my way see you soon where are we meeting tonight dinner at eight sounds good "
        + "running late sorry traffic again coffee tomorrow morning call me when you land "
        + "the train is delayed happy birthday thanks everyone lunch pizza ok great").split(separator: " ").map(
            String.init)

    static let names = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"]

    /// The members of every conversation: the user first, then names from a fixed list.
    public func memberIDs() -> [UserID] {
        var result = [userID]
        var index = 0
        while result.count < members {
            let name = index < Self.names.count ? Self.names[index] : "user\(index + 1)"
            index += 1
            if let id = try? UserID(name), id != userID { result.append(id) }
        }
        return result
    }

    /// The `sequence`-th message (from 1) of a conversation, with IDs from `random`.
    public static func message(_ sequence: Int, members: [UserID], random: inout SplitMix64) -> Message {
        let wordCount = Int(random.next() % 13) + 4
        let text = (0..<wordCount).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")
        return Message(
            sequence: sequence,
            clientMessageID: .random(using: &random),
            senderID: members[sequence % members.count],
            text: text,
            sentAt: Clock.iso8601(nanoseconds: UInt64(1_700_000_000 + sequence) * 1_000_000_000)
        )
    }

    /// Creates the store at `root` and fills it. `progress` is called after each batch of segments
    /// with the number of messages written so far.
    @discardableResult
    public func generate(at root: String, progress: (Int) -> Void = { _ in }) throws(StoreError) -> Store {
        let store = try Store.create(at: root, manifest: Manifest(userID: userID, segmentSize: segmentSize))
        let writer = try StoreWriter(store: store)
        let members = memberIDs()
        var written = 0
        for index in 1...max(conversations, 1) where conversations > 0 {
            var random = SplitMix64(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
            let id = try conversationID(index)
            let title =
                members.count == 2
                ? members[1].rawValue.prefix(1).uppercased() + members[1].rawValue.dropFirst()
                : "Group \(index) (\(members.count) people)"
            try writer.saveInfo(ConversationInfo(title: title, members: members), for: id)
            let batchSize = segmentSize * 64
            var batch: [Message] = []
            batch.reserveCapacity(min(batchSize, messagesPerConversation))
            for sequence in stride(from: 1, through: messagesPerConversation, by: 1) {
                batch.append(Self.message(sequence, members: members, random: &random))
                if batch.count == batchSize || sequence == messagesPerConversation {
                    try writer.save(batch, in: id)
                    written += batch.count
                    batch.removeAll(keepingCapacity: true)
                    progress(written)
                }
            }
            try writer.mergePositions(positions(members: members, random: &random), in: id)
            try writeOutbox(id: id, store: store, random: &random)
        }
        return store
    }

    public func conversationID(_ index: Int) throws(StoreError) -> ConversationID {
        do { return try ConversationID("c\(index)") } catch { throw .invalid(error) }
    }

    private func positions(members: [UserID], random: inout SplitMix64) -> Positions {
        let last = messagesPerConversation
        var positions = Positions()
        for member in members {
            let delivered = max(0, last - Int(random.next() % 4))
            let read = max(0, delivered - Int(random.next() % 4))
            positions.merge(MemberPosition(deliveredUpTo: delivered, readUpTo: read), for: member)
        }
        return positions
    }

    private func writeOutbox(id: ConversationID, store: Store, random: inout SplitMix64) throws(StoreError) {
        let directory = store.conversation(id).outboxDirectory
        let count = pendingPerConversation + failedPerConversation
        guard count > 0 else { return }
        var files: [(name: String, bytes: [UInt8])] = []
        for index in 0..<count {
            let failed = index < failedPerConversation
            let ordinal = UInt64(1_700_000_000 + messagesPerConversation + index + 1) * 1_000_000_000
            let entry = OutboxEntry(
                ordinal: ordinal, clientMessageID: .random(using: &random),
                text: failed
                    ? "this one was refused (\(index + 1))" : "still on its way (\(index + 1 - failedPerConversation))",
                createdAt: Clock.iso8601(nanoseconds: ordinal), state: failed ? .failed : .pending,
                attempts: failed ? 1 : 0, error: failed ? "rejected by the server: the message was refused" : nil
            )
            files.append((OutboxFile.fileName(ordinal: ordinal, id: entry.clientMessageID), OutboxFile.encode(entry)))
        }
        try system { () throws(SystemError) in try DurableFile.write(files, in: directory) }
    }
}
