import ChatDomain

/// The reference server's door to one conversation's files in its data directory: the segment
/// log (sequences 1…n without holes, appended in batches), `positions.json` and
/// `conversation.json`, in the store format and byte for byte what a client's ``StoreWriter``
/// writes for the same messages (one owner per file kind, docs/FORMAT.md; in a data directory the
/// server is that owner, under the directory's ``StoreLock``).
///
/// The server keeps the history in memory and decides what is durable; this type only turns a
/// batch into segment files (``batch(of:durableCount:)``, cheap enough to run under the
/// server's lock) and makes it durable (``commit(_:)``: each file written to a temp, fsynced and
/// renamed, then one fsync of `messages/`, the group commit's order).
public struct SegmentLog: Sendable {
    public let conversation: Conversation

    public init(_ conversation: Conversation) {
        self.conversation = conversation
    }

    /// The segment files one commit rewrites, whole, and the last sequence they hold.
    public struct Batch: Sendable {
        /// The highest sequence the batch makes durable.
        public let through: Int
        let files: [(name: String, bytes: [UInt8])]

        /// The names of the segment files the batch rewrites, in order.
        public var fileNames: [String] { files.map(\.name) }
    }

    /// Removes temp files that killed writers left in the conversation's and `messages/` directories.
    public func removeStaleTemporaries() {
        for directory in [conversation.directory, conversation.messagesDirectory] {
            DurableFile.removeStaleTemporaries(in: directory)
        }
    }

    /// The segments that hold `history[durableCount...]`, each encoded whole (the durable
    /// messages that share a segment with new ones included). `history[i]` has sequence `i + 1`.
    public func batch(of history: [Message], durableCount: Int) -> Batch {
        let first = durableCount + 1
        let last = history.count
        var files: [(name: String, bytes: [UInt8])] = []
        guard first <= last else { return Batch(through: last, files: files) }
        var range = SegmentRange(containing: first, size: conversation.segmentSize)
        while range.first <= last {
            let slice = history[(range.first - 1)..<min(range.last, last)]
            files.append((range.fileName, SegmentFile.encode(Array(slice))))
            range = SegmentRange(containing: range.last + 1, size: conversation.segmentSize)
        }
        return Batch(through: last, files: files)
    }

    /// Makes a batch durable: `messages/` made if needed, every file of the batch renamed into
    /// place, then one fsync of the directory. On a throw, any of the batch may be on disk.
    public func commit(_ batch: Batch) throws(StoreError) {
        do {
            try DurableFile.makeDirectories(conversation.messagesDirectory)
            try DurableFile.write(batch.files, in: conversation.messagesDirectory)
        } catch {
            throw .system(error)
        }
    }

    /// Writes `positions.json` durably. The caller orders the writes (the server holds its
    /// positions lock through this call).
    public func writePositions(_ positions: Positions) throws(StoreError) {
        do {
            try DurableFile.write(
                PositionsFile.encode(positions), to: StoreLayout.positions, in: conversation.directory)
        } catch {
            throw .system(error)
        }
    }

    /// Starts the conversation (`POST /v1/conversations`): its directory with `conversation.json`
    /// and `messages/`, made whole in one rename (``DurableFile/createConversation(_:info:creation:)``,
    /// as a device's `create` makes it), so a crash leaves no conversation or a whole one.
    /// - Throws: ``StoreError/system(_:)`` when a write failed; nothing was started.
    public func start(_ info: ConversationInfo) throws(StoreError) {
        do {
            try DurableFile.createConversation(conversation, info: info, creation: nil)
        } catch {
            throw .system(error)
        }
    }

    /// Creates the conversation's directories and writes its `conversation.json`, in place: for
    /// a new data directory, which no server reads yet (``start(_:)`` for one that runs).
    public func create(_ info: ConversationInfo) throws(StoreError) {
        do {
            try DurableFile.makeDirectories(conversation.messagesDirectory)
            try DurableFile.write(info.encode(), to: StoreLayout.conversationInfo, in: conversation.directory)
        } catch {
            throw .system(error)
        }
    }
}
