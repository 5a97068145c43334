import ChatDomain
import ChatStore
import Dispatch

/// Runs an actor's jobs on a private serial dispatch queue, so blocking work (fsync) never
/// occupies the cooperative pool's two threads (LINUX-NOTES: it delays unrelated timers).
final class QueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { unowned.runSynchronously(on: executor) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}

/// The sync worker's side of the store: the one ``StoreWriter`` (and its lock), with every
/// write and read on its own serial queue. A write that has started always finishes: a
/// cancelled task only stops the worker between writes.
actor SyncStore {
    nonisolated let store: Store
    private let writer: StoreWriter
    private let executor: QueueExecutor

    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(store: Store) throws(StoreError) {
        self.store = store
        writer = try StoreWriter(store: store)
        executor = QueueExecutor(label: "chatdir.store")
    }

    var me: UserID { store.userID }

    func knownConversations() throws(StoreError) -> [ConversationID] {
        try store.conversationIDs()
    }

    func saveInfo(_ info: ConversationInfo, for id: ConversationID) throws(StoreError) {
        try writer.saveInfo(info, for: id)
    }

    func info(_ id: ConversationID) throws(StoreError) -> ConversationInfo? {
        try store.conversation(id).info()
    }

    @discardableResult
    func save(_ messages: [Message], in id: ConversationID) throws(StoreError) -> StoreWriter.SaveResult {
        try writer.save(messages, in: id)
    }

    @discardableResult
    func accept(_ messages: [Message], in id: ConversationID) throws(StoreError) -> StoreWriter.SaveResult {
        try writer.accept(messages, in: id)
    }

    func markFailed(_ messageID: ClientMessageID, reason: String, in id: ConversationID) throws(StoreError) {
        try writer.markFailed(messageID, reason: reason, in: id)
    }

    func recordAttempt(_ messageID: ClientMessageID, in id: ConversationID) throws(StoreError) {
        try writer.recordAttempt(messageID, in: id)
    }

    func removeAcceptedOutboxFiles(in id: ConversationID) throws(StoreError) -> [ClientMessageID] {
        try writer.removeAcceptedOutboxFiles(in: id)
    }

    @discardableResult
    func mergePositions(_ positions: Positions, in id: ConversationID) throws(StoreError) -> Positions {
        try writer.mergePositions(positions, in: id)
    }

    func positions(_ id: ConversationID) throws(StoreError) -> Positions? {
        try store.conversation(id).positions()
    }

    func pendingOutbox(_ id: ConversationID) throws(StoreError) -> [OutboxEntry] {
        try store.conversation(id).outbox().filter { $0.state == .pending }
    }

    func wantedReadPosition(_ id: ConversationID) throws(StoreError) -> Int? {
        try store.conversation(id).wantedReadPosition()
    }

    /// Forgets the read wish `posted` (unless raised since) once the server answered it.
    func settleRead(_ id: ConversationID, posted: Int) throws(StoreError) {
        try Outbox(store.conversation(id)).settleRead(posted: posted)
    }

    /// The newest stored sequence, or 0 for a conversation with no messages yet.
    func newestSequence(_ id: ConversationID) throws(StoreError) -> Int {
        try store.conversation(id).newestMessages(limit: 1).messages.last?.sequence ?? 0
    }

    /// The oldest stored sequence, or nil with none.
    func oldestSequence(_ id: ConversationID) throws(StoreError) -> Int? {
        let conversation = store.conversation(id)
        for range in try conversation.segmentRanges() {
            if let first = try conversation.readSegment(range).first { return first.sequence }
        }
        return nil
    }
}
