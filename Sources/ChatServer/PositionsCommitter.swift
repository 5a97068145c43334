import ChatStore
import ChatSystem

/// Makes the `positions.json` writes of many conversations durable together: one per data
/// directory, shared by every ``ConversationLog``.
///
/// A client syncing many conversations posts their delivered positions several at a time, each
/// to another conversation, so each POST used to pay its own two fsyncs (the temp file, then its
/// directory after the rename). Here the writes that arrive while a commit runs wait in memory
/// and go into the next one, a ``GroupCommit``: from ``syncfsFrom`` files on, temp files
/// written, `syncfs(2)`, every rename, `syncfs(2)`; a smaller batch (a lone POST) keeps the two
/// fsyncs per file. The thread whose write starts a batch commits it; when it is done, the
/// oldest waiter of the next batch takes over (as ``ConversationLog``'s message commits do).
///
/// Each caller returns only once its file is durable, so a position is answered only when a
/// crash cannot take it back; a crash in the middle of a batch leaves each file old or new
/// (renames are atomic) and temp files the next start sweeps. A caller writes one conversation's
/// file at a time (the conversation's positions lock), so no batch holds one path twice.
final class PositionsCommitter: Sendable {
    /// Batches of at least this many files are made durable by `syncfs(2)`: two flushes of the
    /// file system instead of two fsyncs per file, each file in a directory of its own.
    static let syncfsFrom = 4

    private struct Waiting {
        var directory: String
        var bytes: [UInt8]
        var ticket: CommitTicket<Void>
    }

    private struct State {
        var waiting: [Waiting] = []
        /// Whether some thread is committing a batch right now (or was asked to).
        var committing = false
    }

    private let state = Lock(State())

    init() {}

    /// Replaces `positions.json` in `directory` with `bytes`; returns once that is durable.
    /// Blocks the calling thread (a connection thread, never the cooperative pool).
    /// - Throws: ``StoreError`` when the batch could not be written; the file is then the old
    ///   one or the new one, and the caller treats it as not written.
    func write(_ bytes: [UInt8], in directory: String) throws(StoreError) {
        let ticket = CommitTicket<Void>()
        let leads = state.withLock { state in
            state.waiting.append(Waiting(directory: directory, bytes: bytes, ticket: ticket))
            if state.committing { return false }
            state.committing = true
            return true
        }
        if leads { commitBatch() }
        while true {
            switch ticket.wait() {
            case .lead: commitBatch()
            case .durable: return
            case .failed(let error): throw error
            }
        }
    }

    /// Commits every write waiting now, answers them, and hands the next batch to the oldest
    /// waiter left (or ends the commit when there is none).
    private func commitBatch() {
        let batch = state.withLock { state in
            defer { state.waiting = [] }
            return state.waiting
        }
        let group = GroupCommit(syncfsFrom: Self.syncfsFrom)
        for write in batch { group.stage(write.bytes, as: StoreLayout.positions, in: write.directory) }
        var failure: StoreError?
        do {
            try group.commit()
        } catch {
            failure = .system(error)
        }
        let next = state.withLock { state -> CommitTicket<Void>? in
            if let first = state.waiting.first { return first.ticket }
            state.committing = false
            return nil
        }
        for write in batch { write.ticket.resolve(failure.map { .failed($0) } ?? .durable(())) }
        next?.resolve(.lead)
    }
}
