import ChatDomain
import ChatSystem

/// The sync worker as a screen shows it: who holds the store's lock, and what `.sync-status`
/// says (connected, reconnecting and why, conversations it stopped on). The observers read it
/// about once a second, so a screen says when the server is down or its conversation stopped.
public struct SyncWorkerState: Hashable, Sendable {
    /// The process holding the store's lock; nil when no worker runs.
    public var pid: Int32?
    /// What `.sync-status` says: the running worker's figures, or the last worker's when none
    /// runs (how it ended); nil when there is no such file or it cannot be read.
    public var status: SyncStatus?
    /// Whole seconds until the worker tries the server again (0: trying now), while it is
    /// reconnecting. Counted here, so a screen that redraws on a new state counts down.
    public var nextTryIn: Int?

    public init(pid: Int32? = nil, status: SyncStatus? = nil, nextTryIn: Int? = nil) {
        self.pid = pid
        self.status = status
        self.nextTryIn = nextTryIn
    }

    /// The state of the store at `storeRoot` as of `now` (milliseconds since 1970), with
    /// `holder` the lock's holder as ``StoreLock/holder(storeRoot:)`` found it.
    public static func read(storeRoot: String, holder: Int32?, now: Int64) -> SyncWorkerState {
        var state = SyncWorkerState(pid: holder)
        if case .success(let status)? = SyncStatusFile.read(storeRoot: storeRoot) { state.status = status }
        if let current = state.current, current.connection == .reconnecting, let next = current.nextTryAt {
            state.nextTryIn = Int(max(0, (next - now + 999) / 1000))
        }
        return state
    }

    /// The figures of the worker that runs now (not an earlier one's file).
    public var current: SyncStatus? {
        guard let status, let pid, status.pid == pid, status.connection != .stopped else { return nil }
        return status
    }

    /// Whether a screen shows `other` as it shows this state: the same holder, connection, problem,
    /// countdown and stopped conversations (all of them, or only `id`'s). Figures such as
    /// send-to-sent times are no reason to redraw.
    public func looksLike(_ other: SyncWorkerState, in id: ConversationID? = nil) -> Bool {
        func stopped(_ state: SyncWorkerState) -> [ConversationID: String] {
            guard let id else { return state.status?.stoppedConversations ?? [:] }
            return state.stopped(id).map { [id: $0] } ?? [:]
        }
        return pid == other.pid && status?.pid == other.status?.pid && status?.connection == other.status?.connection
            && status?.problem == other.status?.problem && nextTryIn == other.nextTryIn
            && stopped(self) == stopped(other)
    }

    /// Why the worker stopped syncing conversation `id`, as the last status written says.
    public func stopped(_ id: ConversationID) -> String? {
        status?.stoppedConversations[id]
    }
}
