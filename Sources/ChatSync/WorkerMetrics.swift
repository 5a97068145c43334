import ChatDomain
import ChatStore
import ChatSystem

/// The sync worker's figures for `chatdir status`, kept in the store's `.sync-status`
/// (``SyncStatusFile``): the worker calls it at a few points (connected, connection lost, a
/// conversation caught up, messages delivered, stopped) and it writes the file at most once a
/// second, a change within that second a little later. Best effort: a figure that cannot be
/// written is not worth stopping a sync for.
public final class WorkerMetrics: Sendable {
    private struct State {
        var status: SyncStatus
        /// Monotonic milliseconds of the last write.
        var lastWrite: Int?
        var writeScheduled = false
        /// Set by ``stopped()``, whose write is the last: a later one could still be under way
        /// when the process exits and leave its temp file in the store.
        var stopped = false
    }

    private let storeRoot: String
    private let state: Lock<State>
    /// Shortest time between two writes, in milliseconds.
    static let interval = 1_000

    /// Starts the figures of a worker running now in this process, and writes them. The history
    /// the last worker left (when each conversation last caught up, the last deliveries' times)
    /// is kept until this one changes it: a pass that fails before it catches up (the server
    /// down, the token refused) must not make `status` forget that the store was caught up an
    /// hour ago. What is the worker's own (pid, connection, reconnects) starts afresh.
    public init(storeRoot: String, mode: SyncStatus.Mode) {
        self.storeRoot = storeRoot
        let now = Self.now()
        var status = SyncStatus(
            pid: Sys.currentProcessID, mode: mode, startedAt: now, connection: mode == .live ? .connecting : .syncing)
        if case .success(let last)? = SyncStatusFile.read(storeRoot: storeRoot) {
            status.caughtUp = last.caughtUp
            status.sendToSent = last.sendToSent
        }
        state = Lock(State(status: status))
        change { _ in }
    }

    /// The live socket is up.
    public func connected() {
        change { status in
            status.connection = .connected
            status.problem = nil
            status.nextTryAt = nil
        }
    }

    /// The live worker waits `delay` before it tries the server again: screens count it down.
    public func nextTry(in delay: Duration) {
        change { status in
            let parts = delay.components
            status.nextTryAt = status.updatedAt + parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000
        }
    }

    /// The live socket is down (or could not be opened); `problem` says why. A socket that was
    /// up counts as a reconnect.
    public func disconnected(problem: String) {
        change { status in
            if status.connection == .connected { status.reconnects.append(status.updatedAt) }
            status.connection = .reconnecting
            status.problem = problem
        }
    }

    /// A one-pass sync could not reach the server.
    public func unreachable(problem: String) {
        change { status in
            status.connection = .reconnecting
            status.problem = problem
        }
    }

    /// Conversation `id` caught up with the server just now: whatever stopped it is over.
    public func caughtUp(_ id: ConversationID) {
        change { status in
            status.caughtUp[id] = status.updatedAt
            status.stoppedConversations[id] = nil
        }
    }

    /// Conversation `id` cannot be synced: `problem` says why and what to do. Kept until it
    /// catches up again, so `status`, `list` and its screen say so meanwhile.
    public func conversationStopped(_ id: ConversationID, problem: String) {
        change { status in status.stoppedConversations[id] = problem }
    }

    /// Conversation `id` stored what the server sent or accepted: it syncs again, whatever
    /// stopped it is over. Nothing is written when it was not stopped.
    public func conversationSynced(_ id: ConversationID) {
        guard state.withLock({ $0.status.stoppedConversations[id] != nil }) else { return }
        change { status in status.stoppedConversations[id] = nil }
    }

    /// Messages queued at these ordinals (nanoseconds since 1970) are stored as sent now.
    public func delivered(queuedAt ordinals: [UInt64]) {
        guard !ordinals.isEmpty else { return }
        change { status in
            for ordinal in ordinals {
                status.sendToSent.append(max(0, Int(status.updatedAt) - Int(min(ordinal / 1_000_000, UInt64(Int.max)))))
            }
            status.sendToSent = Array(status.sendToSent.suffix(SyncStatus.deliveriesKept))
        }
    }

    /// The worker ends: written at once, so `status` does not wait for the lock to tell.
    /// `problem` is why, when it ended on an error (the token refused): screens say so.
    public func stopped(problem: String? = nil) {
        change(now: true) { status in
            status.connection = .stopped
            status.problem = problem
            status.nextTryAt = nil
        }
        state.withLock { $0.stopped = true }
    }

    private static func now() -> Int64 { Int64(Clock.nanosecondsSince1970() / 1_000_000) }

    private func change(now immediately: Bool = false, _ body: (inout SyncStatus) -> Void) {
        let wait = state.withLock { state -> Int? in
            if state.stopped { return nil }
            state.status.updatedAt = Self.now()
            body(&state.status)
            state.status.reconnects.removeAll { $0 < state.status.updatedAt - SyncStatus.reconnectWindow }
            let monotonic = Clock.monotonicMilliseconds()
            let due = state.lastWrite.map { $0 + Self.interval } ?? monotonic
            if immediately || monotonic >= due {
                write(&state, at: monotonic)
                return nil
            }
            if state.writeScheduled { return nil }
            state.writeScheduled = true
            return due - monotonic
        }
        guard let wait else { return }
        Task.detached { [self] in
            try? await Task.sleep(for: .milliseconds(wait))
            state.withLock { state in
                state.writeScheduled = false
                if !state.stopped { write(&state, at: Clock.monotonicMilliseconds()) }
            }
        }
    }

    private func write(_ state: inout State, at monotonic: Int) {
        state.lastWrite = monotonic
        try? SyncStatusFile.write(state.status, storeRoot: storeRoot)
    }
}
