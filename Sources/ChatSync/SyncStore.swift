import ChatDomain
import ChatStore
import ChatSystem
import Dispatch

/// Runs an actor's jobs on a private serial dispatch queue, so blocking work (fsync) never
/// occupies the cooperative pool's two threads (a blocked pool thread delays unrelated timers).
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

    /// Saves what a server sent after checking it, as a whole, against itself and the store
    /// (``ServerHistoryCheck``): a page that fails is refused and nothing of it is written.
    @discardableResult
    func saveFromServer(
        _ messages: [Message], in id: ConversationID, after: Int? = nil, before: Int? = nil, what: String
    ) throws -> StoreWriter.SaveResult {
        guard !messages.isEmpty else { return try writer.save([], in: id) }
        try ServerHistoryCheck.page(messages, after: after, before: before, what: what)
        try ServerHistoryCheck.against(try storedNear(messages, in: id), messages)
        try ServerHistoryCheck.againstOutbox(try queued(among: messages, in: id), messages, me: me)
        return try writer.save(messages, in: id)
    }

    /// Records outbox messages the server accepted, checked against the store first: when their
    /// sequences hold other records the server's history is not this store's, nothing is
    /// written and every outbox file stays.
    @discardableResult
    func acceptFromServer(_ messages: [Message], in id: ConversationID) throws -> StoreWriter.SaveResult {
        guard !messages.isEmpty else { return try writer.save([], in: id) }
        try ServerHistoryCheck.page(
            messages.sorted { $0.sequence < $1.sequence }, what: "the messages the server accepted")
        try ServerHistoryCheck.against(try storedNear(messages, in: id), messages)
        try ServerHistoryCheck.againstOutbox(try queued(among: messages, in: id), messages, me: me)
        return try writer.accept(messages, in: id)
    }

    /// My outbox entries whose client message IDs `messages` carry.
    private func queued(among messages: [Message], in id: ConversationID) throws(StoreError) -> [OutboxEntry] {
        try store.conversation(id).outboxEntries(carrying: Set(messages.map(\.clientMessageID)))
    }

    /// The stored records a page must agree with: the segments it writes to, the one before
    /// each, and the newest two (where the records of recent pages are).
    private func storedNear(_ messages: [Message], in id: ConversationID) throws(StoreError) -> [Message] {
        let conversation = store.conversation(id)
        let size = store.manifest.segmentSize
        var ranges = Set<SegmentRange>()
        for message in messages {
            let range = SegmentRange(containing: message.sequence, size: size)
            ranges.insert(range)
            if range.first > 1 { ranges.insert(SegmentRange(containing: range.first - 1, size: size)) }
        }
        ranges.formUnion(try conversation.segmentRanges().suffix(2))
        var stored: [Message] = []
        for range in ranges { stored += try conversation.readSegment(range) }
        return stored
    }

    /// The stored record at `sequence`, if any.
    func storedMessage(_ id: ConversationID, sequence: Int) throws(StoreError) -> Message? {
        guard sequence >= 1 else { return nil }
        return try store.conversation(id).readSegment(
            SegmentRange(containing: sequence, size: store.manifest.segmentSize)
        ).first { $0.sequence == sequence }
    }

    /// Merges positions a server reported, each clamped to the newest stored sequence: a member
    /// has read at least that far, and a position beyond every stored message (readUpTo 10^9
    /// when the newest is 5) must not make every later message look read.
    /// `newest`, when given, is the newest sequence stored (one staged in a ``GroupCommit`` is
    /// not on disk yet).
    @discardableResult
    func mergeServerPositions(_ positions: Positions, in id: ConversationID, newest known: Int? = nil)
        throws(StoreError) -> Positions
    {
        let newest = if let known { known } else { try newestSequence(id) }
        return try writer.mergePositions(Self.clamped(positions, to: newest), in: id)
    }

    /// `positions` with every number lowered to `newest` at most; a Matrix member's delivered
    /// position stays 0 (Matrix has none: a store that showed one would lie).
    private static func clamped(_ positions: Positions, to newest: Int) -> Positions {
        var clamped = Positions()
        for entry in positions.entries {
            let position = entry.position
            let delivered = entry.member.isMatrix ? 0 : min(position.deliveredUpTo, newest)
            clamped.merge(
                MemberPosition(deliveredUpTo: delivered, readUpTo: min(position.readUpTo, newest)),
                for: entry.member)
        }
        return clamped
    }

    func markFailed(_ messageID: ClientMessageID, reason: String, in id: ConversationID) throws(StoreError) {
        try writer.markFailed(messageID, reason: reason, in: id)
    }

    func recordAttempt(_ messageID: ClientMessageID, in id: ConversationID) throws(StoreError) {
        try writer.recordAttempt(messageID, in: id)
    }

    /// Claims an outbox message for one delivery attempt (``OutboxClaim``); nil when it was
    /// cancelled or moved meanwhile, or a cancel is deciding about it right now.
    func claim(_ entry: OutboxEntry, in id: ConversationID) -> OutboxClaim? {
        OutboxClaim.take(entry, in: store.conversation(id))
    }

    func removeAcceptedOutboxFiles(in id: ConversationID) throws(StoreError) -> [ClientMessageID] {
        try writer.removeAcceptedOutboxFiles(in: id)
    }

    @discardableResult
    func mergePositions(_ positions: Positions, in id: ConversationID) throws(StoreError) -> Positions {
        try writer.mergePositions(positions, in: id)
    }

    /// This device's sync marker for the conversation (``Conversation/caughtUpMarker()``).
    func caughtUpMarker(_ id: ConversationID) -> Int? {
        store.conversation(id).caughtUpMarker()
    }

    /// Records that everything through `sequence` is stored (after a catch-up's pages are durable).
    func recordCaughtUp(_ id: ConversationID, through sequence: Int) throws(StoreError) {
        try writer.recordCaughtUp(through: sequence, in: id)
    }

    /// Keeps what the last listing found for `chatdir list` (`.invitations`, a hint: a failed
    /// write leaves the old one, and the next listing writes it again).
    func recordInvitations(_ invitations: [Invitation]) {
        try? InvitationsFile.write(invitations, storeRoot: store.root)
    }

    /// Where the first sync's history was found complete (``Conversation/historyCompleteMarker()``).
    func historyCompleteMarker(_ id: ConversationID) -> Int? {
        store.conversation(id).historyCompleteMarker()
    }

    /// Records that the first sync's history is stored from `sequence` up (after its pages are durable).
    func recordHistoryComplete(_ id: ConversationID, from sequence: Int) throws(StoreError) {
        try writer.recordHistoryComplete(from: sequence, in: id)
    }

    func positions(_ id: ConversationID) throws(StoreError) -> Positions? {
        try store.conversation(id).positions()
    }

    func pendingOutbox(_ id: ConversationID) throws(StoreError) -> [OutboxEntry] {
        try store.conversation(id).outbox().filter { $0.state == .pending }
    }

    /// The conversation's queued creation (`outbox/create.json`), if any.
    func queuedCreation(_ id: ConversationID) throws(StoreError) -> QueuedCreation? {
        try store.conversation(id).queuedCreation()
    }

    func removeCreation(in id: ConversationID) throws(StoreError) {
        try writer.removeCreation(in: id)
    }

    func finishStart(of id: ConversationID, as started: ConversationID, info: ConversationInfo) throws(StoreError) {
        try writer.finishStart(of: id, as: started, info: info)
    }

    func markCreationFailed(in id: ConversationID, reason: String) throws(StoreError) {
        try writer.markCreationFailed(in: id, reason: reason)
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

    // MARK: - Group commits (a first sync of many conversations)

    /// Where a conversation's catch-up starts and the stored record the server must show again,
    /// after removing outbox files whose messages are stored (a crash came between): the first
    /// steps of ``SyncEngine/syncConversation(_:head:report:)`` in one visit.
    func catchUpStart(_ id: ConversationID) throws(StoreError) -> (after: Int, overlap: Message?) {
        _ = try writer.removeAcceptedOutboxFiles(in: id)
        let after = try catchUpPoint(id)
        return (after, try storedMessage(id, sequence: after))
    }

    /// One conversation's part of a group: its details, and when fetched, its one catch-up page
    /// (the whole catch-up) and its receipts.
    struct GroupedPage: Sendable {
        var id: ConversationID
        var info: ConversationInfo
        /// The page and the sequence it was asked for after; nil when not fetched.
        var page: (items: [Message], after: Int)? = nil
        var receipts: Positions? = nil
    }

    /// What a group commit stored of one conversation.
    struct SavedPage: Sendable {
        var inserted: [Message]
        /// The positions the store will hold once the receipts are merged (``recordGrouped(_:)``
        /// writes them); nil without receipts.
        var positions: Positions?
        /// The newest sequence stored once the page is, which the receipts were clamped to; nil
        /// without receipts.
        var newest: Int?
    }

    /// Saves each conversation's details and page as ``SyncEngine/syncConversation(_:head:report:)``
    /// would one by one, staged into one ``GroupCommit``: two `syncfs` for all of them. The
    /// receipts are only merged in memory here: `positions.json` is written once, with the
    /// delivered position the server confirms, by ``recordGrouped(_:)``. A conversation whose
    /// page is refused (``ServerHistoryCheck``) fails alone; a failed commit fails every one.
    func saveGrouped(_ pages: [GroupedPage]) -> [Result<SavedPage?, any Error>] {
        let group = GroupCommit()
        let results = group.staging {
            pages.map { grouped in
                Result { () throws -> SavedPage? in
                    try writer.saveInfo(grouped.info, for: grouped.id)
                    guard let (items, after) = grouped.page else { return nil }
                    let inserted = try saveFromServer(
                        items, in: grouped.id, after: after, what: "the catch-up page after sequence \(after)"
                    ).inserted
                    guard let receipts = grouped.receipts else { return SavedPage(inserted: inserted, positions: nil) }
                    // Clamped as after a save: to the newest stored, the page's included.
                    let newest = max(try newestSequence(grouped.id), inserted.last?.sequence ?? 0)
                    let stored = try store.conversation(grouped.id).positions() ?? Positions()
                    return SavedPage(
                        inserted: inserted, positions: stored.merged(with: Self.clamped(receipts, to: newest)),
                        newest: newest)
                }
            }
        }
        do throws(SystemError) {
            try group.commit()
        } catch {
            return results.map { $0.flatMap { _ in .failure(StoreError.system(error)) } }
        }
        return results
    }

    /// One conversation's catch-up marker, the receipts, and the delivered position the server
    /// confirmed, each when there is one.
    struct GroupedMarker: Sendable {
        var id: ConversationID
        var through: Int? = nil
        var receipts: Positions? = nil
        var delivered: Int? = nil
        /// The newest sequence stored, when ``saveGrouped(_:)`` found it (no second read).
        var newest: Int? = nil
    }

    /// Records catch-up markers (after the pages they speak of are durable, ``saveGrouped(_:)``:
    /// a marker may lag, never lead) and the receipts with my confirmed delivered position,
    /// merged into `positions.json` in one write (the result of merging them one after the
    /// other: the merge only takes maxima), all in one ``GroupCommit``.
    func recordGrouped(_ markers: [GroupedMarker]) -> [Result<Void, any Error>] {
        let group = GroupCommit()
        let results = group.staging {
            markers.map { marker in
                Result { () throws -> Void in
                    if let through = marker.through { try writer.recordCaughtUp(through: through, in: marker.id) }
                    var positions = marker.receipts
                    if let delivered = marker.delivered {
                        positions = (positions ?? Positions()).merged(
                            with: Positions([me: MemberPosition(deliveredUpTo: delivered, readUpTo: 0)]))
                    }
                    if let positions { try mergeServerPositions(positions, in: marker.id, newest: marker.newest) }
                }
            }
        }
        do throws(SystemError) {
            try group.commit()
        } catch {
            return results.map { $0.flatMap { _ in .failure(StoreError.system(error)) } }
        }
        return results
    }

    /// Of `ids`, those with anything in `outbox/` (messages, a read wish, a queued creation):
    /// the others have nothing to drain or post.
    func withOutbox(_ ids: [ConversationID]) -> Set<ConversationID> {
        Set(
            ids.filter {
                (try? Sys.listDirectoryIfPresent(store.conversation($0).outboxDirectory).contains { !$0.hasPrefix(".") })
                    ?? true
            })
    }
}
