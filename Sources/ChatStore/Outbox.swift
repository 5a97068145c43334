import ChatDomain
import ChatSystem

/// The outbox of one conversation: what `send`, `retry` and `read` write.
///
/// Works without the store lock and with no network: every change is one new file or one
/// rename in `outbox/`, each durable before the call returns, so any number of processes can
/// send at once next to a running sync worker. The worker (``StoreWriter``) removes a file only
/// after the message is in its segment.
///
/// `send`, `retry` and `read` serialize on `flock(2)` of the `outbox/` directory (the outbox
/// lock, held for one change): a new ordinal is at least one past the newest in the outbox,
/// whatever the clock says, and two retries of one message cannot both move it.
public struct Outbox: Sendable {
    public let conversation: Conversation
    /// Nanoseconds since 1970 now: the real clock, or a stepped one in tests.
    let now: @Sendable () -> UInt64

    public init(_ conversation: Conversation) {
        self.init(conversation, clock: { Clock.nanosecondsSince1970() })
    }

    /// An outbox whose ordinals and `createdAt` start from `clock` (for tests that step the clock).
    public init(_ conversation: Conversation, clock: @escaping @Sendable () -> UInt64) {
        self.init(conversation, clock: clock, memory: .shared)
    }

    /// An outbox that remembers its newest ordinal in `memory` (tests give each process they
    /// stand for its own).
    init(_ conversation: Conversation, clock: @escaping @Sendable () -> UInt64, memory: OutboxMemory) {
        self.conversation = conversation
        self.directory = conversation.outboxDirectory
        self.now = clock
        self.memory = memory
    }

    /// This process's knowledge of the newest ordinal (``OutboxMemory``).
    let memory: OutboxMemory

    /// `outbox/`'s path, joined once per value: a send names it in half a dozen calls.
    private let directory: String

    /// Queues `text` as a new pending message with a fresh client message ID, at the back of
    /// the queue: its ordinal is the clock's nanoseconds, or one more than the newest ordinal in
    /// the outbox when the clock is behind that (it was stepped back).
    @discardableResult
    public func enqueue(_ text: String, id: ClientMessageID = .random()) throws(StoreError) -> OutboxEntry {
        do { try validateNewMessageText(text) } catch { throw .invalid(error) }
        // The outbox's descriptor holds the lock and is the directory the file is made in: the
        // whole send is Maildir's sequence (temp, write, fsync, link, fsync the directory) and
        // the unlink of the temp name, with no other open for writing (docs/ARCHITECTURE.md).
        return try locked { (outbox: borrowing FileDescriptor) throws(StoreError) in
            let now = self.now()
            let remembered = memory.entry(for: directory)
            let clockOffset = OutboxMemory.clockOffset()
            let ordinal: UInt64
            if let remembered, remembered.stamp != nil,
                OutboxMemory.trusts(
                    remembered, stamp: try system { () throws(SystemError) in try outbox.changeStamp(path: directory) },
                    now: now, clockOffset: clockOffset)
            {
                // Nothing at or past `now` is in the outbox: what a listing would give.
                ordinal = now
                memory.countTrusted()
            } else {
                ordinal = max(now, try newestOrdinal(in: outbox).map(Self.next) ?? 0)
            }
            let entry = OutboxEntry(
                ordinal: ordinal, clientMessageID: id, text: text, createdAt: Clock.iso8601(nanoseconds: now))
            // Stale temp files of killed senders are the writer's to clean (StoreWriter, at start).
            do throws(SystemError) {
                try DurableFile.create(
                    OutboxFile.encode(entry), as: OutboxFile.fileName(ordinal: entry.ordinal, id: id),
                    inDirectoryFD: outbox, directory: directory)
            } catch {
                memory.forget(directory)
                throw .system(error)
            }
            // Still under the lock, after the change. The message is queued whatever happens
            // here: a stamp that cannot be read only means the next send lists.
            if remembered == nil {
                memory.remember(
                    OutboxMemory.Entry(stamp: nil, newest: ordinal, clockOffset: clockOffset), for: directory)
            } else if let stamp = try? outbox.changeStamp(path: directory) {
                memory.remember(
                    OutboxMemory.Entry(stamp: stamp, newest: ordinal, clockOffset: clockOffset), for: directory)
            } else {
                memory.forget(directory)
            }
            return entry
        }
    }

    /// Moves a failed message to the back of the queue as pending, keeping its client message ID.
    /// A message that is already pending is left as it is (and returned).
    @discardableResult
    public func retry(_ id: ClientMessageID) throws(StoreError) -> OutboxEntry {
        try requeue(id).entry
    }

    /// As ``retry(_:)``, and says whether the message was already pending (another `retry`
    /// won the race, or it never failed): then nothing was changed.
    ///
    /// Under the outbox lock, the file is first renamed to a new ordinal past the newest (one
    /// atomic step: never two files for one ID), then its content is rewritten as pending. A
    /// crash between leaves it failed at the back.
    public func requeue(_ id: ClientMessageID) throws(StoreError) -> (entry: OutboxEntry, alreadyPending: Bool) {
        try locked { (outbox: borrowing FileDescriptor) throws(StoreError) in
            guard let entry = try conversation.outbox().first(where: { $0.clientMessageID == id }) else {
                throw .unknownOutboxMessage(conversation.id, id)
            }
            guard entry.state == .failed else { return (entry, true) }
            // A retry makes an ordinal too: what this process remembered is no longer the newest.
            memory.forget(directory)
            var retried = entry
            retried.ordinal = max(now(), Self.next(try newestOrdinal(in: outbox) ?? entry.ordinal))
            retried.state = .pending
            retried.error = nil
            let newName = OutboxFile.fileName(ordinal: retried.ordinal, id: id)
            try system { () throws(SystemError) in
                try DurableFile.rename(OutboxFile.fileName(ordinal: entry.ordinal, id: id), to: newName, in: directory)
                try DurableFile.write(OutboxFile.encode(retried), to: newName, in: directory)
            }
            return (retried, false)
        }
    }

    /// Retries every failed message, in their queue order. Returns the retried entries.
    public func retryAll() throws(StoreError) -> [OutboxEntry] {
        var retried: [OutboxEntry] = []
        for entry in try conversation.outbox() where entry.state == .failed {
            let outcome = try requeue(entry.clientMessageID)
            if !outcome.alreadyPending { retried.append(outcome.entry) }
        }
        return retried
    }

    /// What ``cancel(_:waiting:)`` found.
    public enum CancelOutcome: Sendable, Equatable {
        /// Removed from the outbox before the server accepted it: it will not be sent.
        case cancelled(OutboxEntry)
        /// The server accepted it first: it is stored at this sequence, and stays.
        case alreadySent(sequence: Int)
    }

    /// Removes a pending or failed message that the server has not accepted.
    ///
    /// Takes the message's delivery lock (``OutboxClaim``: `flock(2)` on its file) and then the
    /// outbox lock, so neither a delivery attempt nor a `retry` can be halfway through. When the
    /// sync worker is delivering the message at this moment, `waiting` is called once and the
    /// cancel waits for the attempt to end: a message the server accepted meanwhile is stored by
    /// then and reported as ``CancelOutcome/alreadySent(sequence:)``, never as cancelled.
    /// Throws ``StoreError/unknownOutboxMessage(_:_:)`` for an ID that is neither queued nor
    /// among the newest stored messages.
    public func cancel(_ id: ClientMessageID, waiting: () -> Void = {}) throws(StoreError) -> CancelOutcome {
        var announced = false
        // Each round ends with an answer unless the file changed under the lock (a retry moved
        // it, the worker rewrote it after a failed attempt): then the next round looks again.
        for _ in 0..<100 {
            guard let entry = try conversation.outbox().first(where: { $0.clientMessageID == id }) else {
                if let sequence = try storedSequence(of: id) { return .alreadySent(sequence: sequence) }
                throw .unknownOutboxMessage(conversation.id, id)
            }
            if let outcome = try cancelRound(entry, announced: &announced, waiting: waiting) { return outcome }
        }
        throw .outboxBusy(conversation.id, id)
    }

    /// One round of ``cancel(_:waiting:)`` for the file `entry` was read from: its delivery
    /// lock (waited for), then the outbox lock; nil when the file is no longer the one locked.
    private func cancelRound(_ entry: OutboxEntry, announced: inout Bool, waiting: () -> Void) throws(StoreError)
        -> CancelOutcome?
    {
        let id = entry.clientMessageID
        let path = directory + "/" + OutboxFile.fileName(ordinal: entry.ordinal, id: id)
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.open(path, [.readOnly, .noFollow])
        } catch {
            if error.isNotFound { return nil }
            if error.isSymbolicLink {
                throw .damaged(
                    StoreFiles.symbolicLink(
                        conversation.relative(
                            StoreLayout.outbox + "/" + OutboxFile.fileName(ordinal: entry.ordinal, id: id))))
            }
            throw .system(error)
        }
        var busy = false
        do throws(SystemError) {
            try fd.lockExclusive(path: path)
        } catch {
            guard error.isWouldBlock else { throw .system(error) }
            busy = true
        }
        let held: FileIdentity
        do throws(SystemError) {
            if busy {
                if !announced { waiting() }
                announced = true
                try fd.lockExclusiveWaiting(path: path)
            }
            held = try fd.identity(path: path)
        } catch {
            throw .system(error)
        }
        let outcome = try locked { _ throws(StoreError) -> CancelOutcome? in
            guard Sys.identity(of: path) == held else { return nil }
            // Stored already, its file not removed yet (a worker stopped between the two).
            if let sequence = try storedSequence(of: id) { return .alreadySent(sequence: sequence) }
            guard let current = try conversation.outbox().first(where: { $0.clientMessageID == id }) else { return nil }
            try system { () throws(SystemError) in
                try Sys.unlink(path)
                try Sys.fsyncPath(directory)
            }
            return .cancelled(current)
        }
        fd.unlock()
        return outcome
    }

    /// The sequence at which message `id` is stored, looking among the newest stored messages
    /// (where an accepted outbox message is); nil when it is not there.
    private func storedSequence(of id: ClientMessageID) throws(StoreError) -> Int? {
        try conversation.newestMessages(limit: max(conversation.segmentSize * 2, 1_000)).messages.last {
            $0.clientMessageID == id
        }?.sequence
    }

    /// The failed messages, in queue order (what `cancel --all-failed` shows, then cancels).
    public func failed() throws(StoreError) -> [OutboxEntry] {
        try conversation.outbox().filter { $0.state == .failed }
    }

    /// The ordinal after `ordinal` (the largest stays: ties break on the ID).
    private static func next(_ ordinal: UInt64) -> UInt64 {
        ordinal < UInt64.max ? ordinal + 1 : ordinal
    }

    /// The highest ordinal among the outbox's message files (names only; nil when empty), read
    /// through the locked descriptor `outbox`. Ordinals are fixed-width, so the greatest name of
    /// that length holds it: names are compared as bytes where the kernel put them, and only the
    /// winner is parsed (all of them only when it is not an outbox file name).
    private func newestOrdinal(in outbox: borrowing FileDescriptor) throws(StoreError) -> UInt64? {
        let greatest = try system { () throws(SystemError) in
            try outbox.greatestName(length: OutboxFile.nameLength, path: directory)
        }
        guard let greatest else { return nil }
        if let parsed = OutboxFile.parseName(greatest) { return parsed.ordinal }
        let names = try system { () throws(SystemError) in try Sys.listDirectoryIfPresent(directory) }
        return names.compactMap { OutboxFile.parseName($0)?.ordinal }.max()
    }

    /// Runs `body` holding the outbox lock (`flock(2)` on `outbox/`, made if missing), with the
    /// locked descriptor for the `…at` calls. Never nested: a second `open` of the directory in
    /// this process would wait for the first. The directory is made only when opening it finds
    /// nothing: a send to an existing outbox makes no `stat` first.
    private func locked<T>(_ body: (borrowing FileDescriptor) throws(StoreError) -> T) throws(StoreError) -> T {
        if !conversation.checkedPlain { try conversation.requirePlainDirectories() }
        let fd = try openOutboxRefusingLinks()
        try system { () throws(SystemError) in try fd.lockExclusiveWaiting(path: directory) }
        return try body(fd)
    }

    /// ``openOutbox()``, with a symlink or a file in place of `outbox/` refused by name (the
    /// folders above it are checked by ``Store/existingConversation(_:)`` and the writer's doors).
    private func openOutboxRefusingLinks() throws(StoreError) -> FileDescriptor {
        do {
            return try openOutbox()
        } catch {
            if error.isSymbolicLink || error.errno == .notDirectory {
                throw .damaged(
                    StoreFiles.notPlainDirectory(
                        conversation.relative(StoreLayout.outbox), found: Sys.kind(of: directory) ?? .other))
            }
            throw .system(error)
        }
    }

    private func openOutbox() throws(SystemError) -> FileDescriptor {
        do {
            return try FileDescriptor.open(directory, [.directory, .noFollow])
        } catch {
            guard error.isNotFound else { throw error }
        }
        try DurableFile.makeDirectories(directory)
        return try FileDescriptor.open(directory, [.directory, .noFollow])
    }

    /// Records that the user has read up to `sequence`, forward only: the stored wish becomes
    /// the higher of the old and the new. Returns the stored value. Serialized between processes
    /// by `flock(2)` on the outbox directory, so two `read` commands cannot move it backwards.
    @discardableResult
    public func wantRead(upTo sequence: Int) throws(StoreError) -> Int {
        guard sequence >= 1 else { throw .invalid(.invalidSequence(sequence)) }
        return try locked { _ throws(StoreError) in
            let current = try conversation.wantedReadPosition() ?? 0
            guard sequence > current else { return current }
            try system { () throws(SystemError) in
                try DurableFile.write(
                    OutboxFile.encodeReadPosition(sequence), to: StoreLayout.readPosition, in: directory)
            }
            return sequence
        }
    }

    /// Forgets the read wish once the server has answered a post of `posted`: removes
    /// `read.json` unless another `read` raised it past `posted` meanwhile. For a server that
    /// answered lower than wanted (it has no messages that far): posting again would never get
    /// further, and a wish past the newest message would mark every later message read.
    public func settleRead(posted: Int) throws(StoreError) {
        try locked { _ throws(StoreError) in
            guard let current = try conversation.wantedReadPosition(), current <= posted else { return }
            try system { () throws(SystemError) in
                try Sys.unlink(directory + "/" + StoreLayout.readPosition)
                try Sys.fsyncPath(directory)
            }
        }
    }
}
