import ChatDomain

/// The outbox of one conversation: what `send`, `retry` and `read` write.
///
/// Works without the store lock and with no network: every change is one new file or one
/// rename in `outbox/`, each durable before the call returns, so any number of processes can
/// send at once next to a running sync worker. The worker (``StoreWriter``) removes a file only
/// after the message is in its segment.
public struct Outbox: Sendable {
    public let conversation: Conversation

    public init(_ conversation: Conversation) {
        self.conversation = conversation
    }

    private var directory: String { conversation.outboxDirectory }

    /// Queues `text` as a new pending message with a fresh client message ID.
    @discardableResult
    public func enqueue(_ text: String, id: ClientMessageID = .random()) throws(StoreError) -> OutboxEntry {
        do { try validateMessageText(text) } catch { throw .invalid(error) }
        let now = Clock.nanosecondsSince1970()
        let entry = OutboxEntry(ordinal: now, clientMessageID: id, text: text, createdAt: Clock.iso8601(nanoseconds: now))
        do {
            try DurableFile.makeDirectories(directory)
            // Stale temp files of killed senders are the writer's to clean (StoreWriter, at start):
            // listing a large outbox on every send would cost more than the send.
            try DurableFile.create(OutboxFile.encode(entry), as: OutboxFile.fileName(ordinal: entry.ordinal, id: id), in: directory)
        } catch {
            throw .system(error)
        }
        return entry
    }

    /// Moves a failed message to the back of the queue as pending, keeping its client message ID.
    /// A message that is already pending is left as it is (and returned).
    ///
    /// First the file is renamed to a new ordinal (one atomic step: never two files for one ID),
    /// then its content is rewritten as pending. A crash between leaves it failed at the back.
    @discardableResult
    public func retry(_ id: ClientMessageID) throws(StoreError) -> OutboxEntry {
        guard let entry = try conversation.outbox().first(where: { $0.clientMessageID == id }) else {
            throw .unknownOutboxMessage(conversation.id, id)
        }
        guard entry.state == .failed else { return entry }
        var retried = entry
        retried.ordinal = max(Clock.nanosecondsSince1970(), entry.ordinal + 1)
        retried.state = .pending
        retried.error = nil
        let newName = OutboxFile.fileName(ordinal: retried.ordinal, id: id)
        do {
            try DurableFile.rename(OutboxFile.fileName(ordinal: entry.ordinal, id: id), to: newName, in: directory)
            try DurableFile.write(OutboxFile.encode(retried), to: newName, in: directory)
        } catch {
            throw .system(error)
        }
        return retried
    }

    /// Retries every failed message, in their queue order. Returns the retried entries.
    public func retryAll() throws(StoreError) -> [OutboxEntry] {
        var retried: [OutboxEntry] = []
        for entry in try conversation.outbox() where entry.state == .failed {
            retried.append(try retry(entry.clientMessageID))
        }
        return retried
    }

    /// Records that the user has read up to `sequence`, forward only: the stored wish becomes
    /// the higher of the old and the new. Returns the stored value. Serialized between processes
    /// by `flock(2)` on the outbox directory, so two `read` commands cannot move it backwards.
    @discardableResult
    public func wantRead(upTo sequence: Int) throws(StoreError) -> Int {
        guard sequence >= 1 else { throw .invalid(.invalidSequence(sequence)) }
        try system { () throws(SystemError) in try DurableFile.makeDirectories(directory) }
        let fd = try system { () throws(SystemError) in try Sys.openDirectory(directory) }
        defer { Sys.close(fd) }
        try system { () throws(SystemError) in try Sys.lockExclusiveWaiting(fd, path: directory) }
        let current = try conversation.wantedReadPosition() ?? 0
        guard sequence > current else { return current }
        try system { () throws(SystemError) in
            try DurableFile.write(OutboxFile.encodeReadPosition(sequence), to: StoreLayout.readPosition, in: directory)
        }
        return sequence
    }
}
