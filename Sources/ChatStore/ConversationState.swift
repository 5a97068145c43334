import ChatDomain

/// Everything a live screen of one conversation shows, as of one committed change.
public struct ConversationState: Hashable, Sendable {
    public var id: ConversationID
    public var info: ConversationInfo?
    public var members: [UserID]
    /// Sequenced messages from the first one shown at the start onwards (new ones are never
    /// trimmed away), then the outbox: rows with ticks.
    public var rows: [TimelineRow]
    /// Whether older messages are stored than the first row.
    public var hasOlder: Bool
    public var pending: Int
    public var failed: Int
    /// False while `positions.json` was never written: ticks are unknown.
    public var positionsLoaded: Bool
    /// The process ID of the sync worker holding the store's lock; nil when none runs.
    public var syncWorker: Int32?
    /// Files that could not be read, each `path:line: what to do`; the rows show what was sound.
    public var problems: [String]
    /// False when the conversation's directory is gone.
    public var exists: Bool
    /// Every member's delivered and read position (`positions.json`); nil while never written.
    /// The chat screen's receipts panel says per member what the ticks say for all.
    public var positions: Positions? = nil
    /// Why changes are found by looking at the files every second rather than told by
    /// inotify (a kernel limit reached); nil while inotify sees everything. A screen says so.
    public var polling: WatchFallback? = nil
    /// The sync worker: connected or reconnecting (and why), whether it stopped on this
    /// conversation (``SyncWorkerState/stopped(_:)``).
    public var worker = SyncWorkerState()
    /// Counts the changes met to stored messages older than ``rows``: a record rewritten there
    /// (a redaction), an edit of one of them, a rescan. A screen showing older rows it read on
    /// its own reads them again when this moves.
    public var olderRevision = 0
}
