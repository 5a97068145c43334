import ChatDomain
import ChatSystem

/// The one writer of segments, positions and conversation details: holds the store's lock for
/// as long as it lives (the sync worker, `seed`). Every write is atomic and durable, and
/// deterministic: the same messages give the same bytes whatever order they arrived in.
/// A damaged file is never overwritten: the save fails naming it, and the file stays as it is.
public final class StoreWriter: Sendable {
    public let store: Store
    private let lock: StoreLock
    /// The segments this writer wrote last, with their bytes: what lets a save splice records
    /// onto a segment instead of decoding and re-encoding it (see ``save(_:in:)``).
    private let written = Lock<[WrittenSegment]>([])

    /// A segment as this writer last wrote it: canonical bytes, whose last record is `lastSequence`.
    private struct WrittenSegment: Sendable {
        var conversation: ConversationID
        var range: SegmentRange
        var bytes: [UInt8]
        var lastSequence: Int
    }

    /// How many segments ``written`` keeps (the newest of a few conversations, at most 20 KB each).
    private static let writtenLimit = 8

    /// Takes the lock (or throws ``StoreError/locked(path:holder:)``) and removes temp files
    /// that killed writers left behind.
    public init(store: Store) throws(StoreError) {
        self.store = store
        lock = try StoreLock(storeRoot: store.root)
        DurableFile.removeStaleTemporaries(in: store.root)
        DurableFile.removeStaleTemporaries(in: store.root + "/" + StoreLayout.conversations)
        for id in (try? store.conversationIDs()) ?? [] {
            // Nothing is cleaned or repaired through a link; the doors refuse that conversation
            // by name when it is written to, and the others are written as ever.
            guard let conversation = try? checkedConversation(id) else { continue }
            for directory in [conversation.directory, conversation.messagesDirectory, conversation.outboxDirectory] {
                DurableFile.removeStaleTemporaries(in: directory)
            }
            repairNewestHint(conversation)
        }
    }

    /// Rewrites `messages/.newest` when it does not name the newest segment (a power loss can
    /// lose its rename while keeping a segment's; a hand edit can leave it behind). Best effort:
    /// readers check the hint and list the directory when it is wrong.
    private func repairNewestHint(_ conversation: Conversation) {
        guard let newest = try? conversation.segmentRanges().last else { return }
        let bytes = Self.hintBytes(naming: newest)
        let hint = try? conversation.read(
            StoreLayout.messages + "/" + StoreLayout.newestHint, expected: 64, limit: 4096)
        if hint == nil, !Self.isHinted(newest) { return }
        if hint != bytes {
            try? DurableFile.write(bytes, to: StoreLayout.newestHint, in: conversation.messagesDirectory)
        }
    }

    /// Whether a conversation whose newest segment is `newest` has a `messages/.newest` hint:
    /// not while that is the first range (its only segment). A reader lists a directory of one
    /// file as cheaply as it reads the hint, and a first sync of many one-segment conversations
    /// makes one file fewer each.
    private static func isHinted(_ newest: SegmentRange) -> Bool { newest.first > 1 }

    /// `messages/.newest`'s bytes when `newest` is the newest segment.
    private static func hintBytes(naming newest: SegmentRange) -> [UInt8] { Array((newest.fileName + "\n").utf8) }

    /// The conversation `id`, refused when its folder, `messages/` or `outbox/` is a symlink or
    /// a file (``Conversation/requirePlainDirectories()``): nothing is written outside the store.
    func checkedConversation(_ id: ConversationID) throws(StoreError) -> Conversation {
        var conversation = store.conversation(id)
        try conversation.requirePlainDirectories()
        conversation.checkedPlain = true
        return conversation
    }

    /// Directories are made below the store root, never the root itself: a store removed while
    /// a writer still runs stays removed instead of coming back half made.
    private func requireStore() throws(StoreError) {
        guard Sys.kind(of: store.root + "/" + StoreLayout.conversations) == .directory else {
            throw .notAStore(path: store.root, reason: "it was removed while a writer was running")
        }
    }

    /// Creates the conversation's directories if needed and writes its details if they changed.
    public func saveInfo(_ info: ConversationInfo, for id: ConversationID) throws(StoreError) {
        let conversation = try checkedConversation(id)
        try requireStore()
        try system { () throws(SystemError) in
            try DurableFile.makeDirectories(conversation.messagesDirectory)
            try DurableFile.makeDirectories(conversation.outboxDirectory)
        }
        let bytes = info.encode()
        if try conversation.read(StoreLayout.conversationInfo) == bytes { return }
        try system { () throws(SystemError) in
            try DurableFile.write(bytes, to: StoreLayout.conversationInfo, in: conversation.directory)
        }
    }

    /// What a save changed.
    public struct SaveResult: Sendable, Equatable {
        /// Messages that were not stored before, ascending by sequence.
        public var inserted: [Message] = []
        /// Messages already stored (same sequence and client message ID): nothing to do.
        public var duplicates = 0
        /// Messages that contradict what is stored (a sequence taken by another client ID, or a
        /// client ID stored at another sequence): the stored one is kept.
        public var conflicts: [Message] = []
        /// Of the duplicates, those whose stored record is the same message field for field.
        public var alreadyStored: [Message] = []
        /// Redacted records that replaced their event's stored original (a Matrix store learns
        /// of a redaction after it stored the message), ascending by sequence.
        public var redacted: [Message] = []

        /// Messages that are now durably stored exactly as given (inserted, redacted, or already there).
        public var storedExactly: [Message] { inserted + redacted + alreadyStored }
    }

    /// Saves messages into their segments: one durable commit (one directory fsync) for the batch.
    /// Saved by client ID and sequence, so a message seen twice is stored once; a redacted record
    /// replaces its event's stored original (``SaveResult/redacted``).
    @discardableResult
    public func save(_ messages: [Message], in id: ConversationID) throws(StoreError) -> SaveResult {
        let conversation = try checkedConversation(id)
        var result = SaveResult()
        guard !messages.isEmpty else { return result }
        if let beyond = messages.first(where: { $0.sequence > StoreLayout.maxSequence }) {
            throw .sequenceTooLarge(beyond.sequence, id)
        }
        try requireStore()
        let size = store.manifest.segmentSize
        let byRange = Dictionary(grouping: messages) { SegmentRange(containing: $0.sequence, size: size) }
        var files: [(name: String, bytes: [UInt8])] = []
        var lastSequences: [(range: SegmentRange, last: Int)] = []
        var spliced = 0
        var missing = false
        for range in byRange.keys.sorted() {
            let name = StoreLayout.messages + "/" + range.fileName
            let incoming = byRange[range, default: []].sorted { $0.sequence < $1.sequence }
            guard let bytes = try conversation.segmentBytes(range) else {
                missing = true
                if let new = insert(incoming, into: [], result: &result) {
                    files.append((range.fileName, SegmentFile.encode(new)))
                    lastSequences.append((range, new.last?.sequence ?? 0))
                }
                continue
            }
            // The splice: the file still holds the bytes this writer wrote (so canonical), and
            // every new record goes after its last one: the bytes the full path would make.
            if let known = writtenSegment(id, range), known.bytes == bytes,
                let appended = SegmentFile.appending(incoming, to: bytes, after: known.lastSequence)
            {
                files.append((range.fileName, appended))
                lastSequences.append((range, incoming[incoming.count - 1].sequence))
                result.inserted += incoming
                spliced += 1
                continue
            }
            let decoded = SegmentFile.decode(
                bytes, path: conversation.relative(name), range: range, reportLayout: false,
                protocol: conversation.storeProtocol)
            if let problem = decoded.firstError { throw .damaged(problem) }
            if let new = insert(incoming, into: decoded.messages, result: &result) {
                files.append((range.fileName, SegmentFile.encode(new)))
                lastSequences.append((range, new.last?.sequence ?? 0))
            }
        }
        // A spliced segment was written by this writer before, and the hint was moved past it then.
        if spliced < files.count, let written = byRange.keys.max(), Self.isHinted(written),
            written > (conversation.hintedNewestSegment() ?? SegmentRange(first: 0, last: 0))
        {
            files.append((StoreLayout.newestHint, Self.hintBytes(naming: written)))
        }
        if files.isEmpty, !result.alreadyStored.isEmpty {
            // A record found in place may be from a save whose directory fsync failed (its rename
            // is not durable): fsync before the caller takes it as stored and drops its outbox file.
            try system { () throws(SystemError) in try Sys.fsyncPath(conversation.messagesDirectory) }
        }
        if missing, !files.isEmpty {
            try system { () throws(SystemError) in try DurableFile.makeDirectories(conversation.messagesDirectory) }
        }
        try system { () throws(SystemError) in try DurableFile.write(files, in: conversation.messagesDirectory) }
        remember(id, zip(lastSequences, files).map { ($0.range, $1.bytes, $0.last) })
        result.inserted.sort { $0.sequence < $1.sequence }
        result.redacted.sort { $0.sequence < $1.sequence }
        return result
    }

    /// Adds `incoming` (ascending) to a segment's `existing` records by sequence and client ID
    /// (and event ID, which a Matrix store also stores once), counting duplicates and conflicts
    /// in `result`; the segment's new records, or nil when nothing was added.
    private func insert(_ incoming: [Message], into existing: [Message], result: inout SaveResult) -> [Message]? {
        var bySequence = Dictionary(uniqueKeysWithValues: existing.map { ($0.sequence, $0) })
        var ids = Set(existing.map(\.clientMessageID))
        var events = Set(existing.compactMap(\.eventID))
        var changed = false
        for message in incoming {
            if let stored = bySequence[message.sequence] {
                // A redaction rewrites the original it removes, only when the redacted record
                // is the original's own (same event, sender, time): never the other way back.
                if message.redacted, !stored.redacted, message == stored.redactedRecord {
                    ids.remove(stored.clientMessageID)
                    ids.insert(message.clientMessageID)
                    bySequence[message.sequence] = message
                    result.redacted.append(message)
                    changed = true
                    continue
                }
                if stored.clientMessageID == message.clientMessageID {
                    result.duplicates += 1
                    if stored == message { result.alreadyStored.append(message) }
                } else {
                    result.conflicts.append(message)
                }
                continue
            }
            guard !ids.contains(message.clientMessageID), message.eventID.map({ !events.contains($0) }) ?? true else {
                result.conflicts.append(message)
                continue
            }
            ids.insert(message.clientMessageID)
            if let eventID = message.eventID { events.insert(eventID) }
            bySequence[message.sequence] = message
            result.inserted.append(message)
            changed = true
        }
        return changed ? bySequence.values.sorted { $0.sequence < $1.sequence } : nil
    }

    private func writtenSegment(_ id: ConversationID, _ range: SegmentRange) -> WrittenSegment? {
        written.withLock { segments in segments.last { $0.conversation == id && $0.range == range } }
    }

    /// Keeps the bytes of segments just made durable, newest last; the oldest go past the limit.
    private func remember(_ id: ConversationID, _ segments: [(range: SegmentRange, bytes: [UInt8], last: Int)]) {
        guard !segments.isEmpty else { return }
        written.withLock { kept in
            for segment in segments {
                kept.removeAll { $0.conversation == id && $0.range == segment.range }
                kept.append(
                    WrittenSegment(
                        conversation: id, range: segment.range, bytes: segment.bytes, lastSequence: segment.last))
            }
            if kept.count > Self.writtenLimit { kept.removeFirst(kept.count - Self.writtenLimit) }
        }
    }

    /// Merges `positions` into the stored ones, forward only; writes only when something moved
    /// (or the file did not exist). Returns the stored positions.
    @discardableResult
    public func mergePositions(_ positions: Positions, in id: ConversationID) throws(StoreError) -> Positions {
        let conversation = try checkedConversation(id)
        let old = try conversation.positions()
        let new = (old ?? Positions()).merged(with: positions)
        if new != old {
            try requireStore()
            try system { () throws(SystemError) in
                try DurableFile.makeDirectories(conversation.directory)
                try DurableFile.write(PositionsFile.encode(new), to: StoreLayout.positions, in: conversation.directory)
            }
        }
        return new
    }

    /// Records that every sequence through `sequence` is stored, in `.caught-up` (docs/FORMAT.md).
    /// Call it only after a catch-up's pages are durable, so the marker may lag but never lead.
    /// Writes only when the number changed.
    public func recordCaughtUp(through sequence: Int, in id: ConversationID) throws(StoreError) {
        let conversation = try checkedConversation(id)
        guard conversation.caughtUpMarker() != sequence else { return }
        try system { () throws(SystemError) in
            try DurableFile.write(
                SequenceMarkerFile.encode(sequence), to: StoreLayout.caughtUp, in: conversation.directory)
        }
    }

    /// Records, in `.history-complete` (docs/FORMAT.md), that the history a first sync brings
    /// is stored from `sequence` up (its goal reached, or the room's first message). Call it
    /// only after those pages are durable.
    public func recordHistoryComplete(from sequence: Int, in id: ConversationID) throws(StoreError) {
        let conversation = try checkedConversation(id)
        guard conversation.historyCompleteMarker() != sequence else { return }
        try system { () throws(SystemError) in
            try DurableFile.write(
                SequenceMarkerFile.encode(sequence), to: StoreLayout.historyComplete, in: conversation.directory)
        }
    }
}

// MARK: - The outbox, as the sync worker sees it

extension StoreWriter {
    /// Records messages the server accepted from the outbox: first saved into their segments
    /// (one durable commit, the directory fsynced), then their outbox files removed (one more).
    /// A crash between leaves both, which readers show once and
    /// ``removeAcceptedOutboxFiles(in:)`` cleans up.
    ///
    /// An outbox file goes only when its exact message is durably in a segment: the same client
    /// message ID, at the sequence the server gave, with the text that was queued. A message
    /// whose sequence holds another record (a server whose history was reset) keeps its file.
    @discardableResult
    public func accept(_ messages: [Message], in id: ConversationID) throws(StoreError) -> SaveResult {
        let result = try save(messages, in: id)
        let conversation = store.conversation(id) // checked by `save` a moment ago
        let stored = Dictionary(
            result.storedExactly.map { ($0.clientMessageID, $0.text) }, uniquingKeysWith: { first, _ in first })
        let names = try conversation.outbox().filter { stored[$0.clientMessageID] == $0.text }.map {
            OutboxFile.fileName(ordinal: $0.ordinal, id: $0.clientMessageID)
        }
        try removeOutboxFiles(names, in: conversation)
        return result
    }

    /// Marks a pending outbox message failed with the server's reason (the queue moves on).
    public func markFailed(_ messageID: ClientMessageID, reason: String, in id: ConversationID) throws(StoreError) {
        try updateOutboxEntry(messageID, in: id) { entry in
            entry.state = .failed
            entry.error = reason
            entry.attempts += 1
        }
    }

    /// Counts a delivery attempt that failed for a temporary reason (the message stays pending).
    public func recordAttempt(_ messageID: ClientMessageID, in id: ConversationID) throws(StoreError) {
        try updateOutboxEntry(messageID, in: id) { entry in entry.attempts += 1 }
    }

    /// Removes outbox files whose message is already stored (a crash came between saving and
    /// removing). Looks in the newest segments, where such messages are. Returns the IDs removed.
    @discardableResult
    public func removeAcceptedOutboxFiles(in id: ConversationID) throws(StoreError) -> [ClientMessageID] {
        let conversation = try checkedConversation(id)
        let names = try conversation.outboxFileNames()
        guard !names.isEmpty else { return [] }
        let queued = Dictionary(
            try conversation.outbox().map { ($0.clientMessageID, $0) }, uniquingKeysWith: { first, _ in first })
        guard !queued.isEmpty else { return [] }
        let recent = try conversation.newestMessages(limit: store.manifest.segmentSize + queued.count).messages
        // Only the exact message: same client ID and the text that was queued.
        let stored = recent.filter { queued[$0.clientMessageID]?.text == $0.text }.map(\.clientMessageID)
        guard !stored.isEmpty else { return [] }
        // The segment may be there without its directory fsync having succeeded (a failed
        // commit): make it durable before the outbox copy goes.
        try system { () throws(SystemError) in try Sys.fsyncPath(conversation.messagesDirectory) }
        try removeOutboxFiles(
            stored.compactMap { queued[$0].map { OutboxFile.fileName(ordinal: $0.ordinal, id: $0.clientMessageID) } },
            in: conversation)
        return stored
    }

    private func removeOutboxFiles(_ names: [String], in conversation: Conversation) throws(StoreError) {
        guard !names.isEmpty else { return }
        try system { () throws(SystemError) in
            let directory = conversation.outboxDirectory
            for name in names {
                do throws(SystemError) {
                    try Sys.unlink(directory + "/" + name)
                } catch {
                    if !error.isNotFound { throw error }
                }
            }
            try Sys.fsyncPath(directory)
        }
    }

    private func updateOutboxEntry(
        _ messageID: ClientMessageID, in id: ConversationID, _ change: (inout OutboxEntry) -> Void
    ) throws(StoreError) {
        let conversation = try checkedConversation(id)
        guard var entry = try conversation.outbox().first(where: { $0.clientMessageID == messageID }) else {
            throw .unknownOutboxMessage(id, messageID)
        }
        change(&entry)
        try system { () throws(SystemError) in
            try DurableFile.write(
                OutboxFile.encode(entry), to: OutboxFile.fileName(ordinal: entry.ordinal, id: messageID),
                in: conversation.outboxDirectory)
        }
    }
}
