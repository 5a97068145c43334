import ChatDomain
import Dispatch
import Synchronization

/// Live views of the store: streams that replay the current value at once, then send a new one
/// after every committed write (the files' version of a database's "re-send the query after each
/// commit"). Each stream owns a ``DirectoryWatcher``; the stream ends when the caller's task is
/// cancelled or the stream is dropped, and then the watcher's thread stops and its descriptors close.
///
/// State streams buffer only the newest value: a slow reader skips states, never gets stale ones.
/// Change streams (``changes(in:)``) buffer everything: a script sees every change.
public struct StoreObserver: Sendable {
    /// Stops a watcher off the calling thread. `onTermination` can run while the stream holds
    /// its own lock, and the watcher's thread may be inside `yield` waiting for that lock:
    /// joining the thread there would deadlock (seen: a test hung in `messages(in:)`).
    public static func stopLater(_ watcher: DirectoryWatcher) {
        DispatchQueue(label: "chatdir.observer.stop").async { watcher.stop() }
    }

    public let store: Store
    /// Milliseconds between checks of what inotify cannot see (whether a sync worker holds the lock).
    public var idleInterval: Int32 = 1000
    /// Milliseconds between looks at the directories the kernel would not watch (its inotify
    /// limits reached); see ``DirectoryWatcher``.
    public var pollInterval: Int = DirectoryWatcher.defaultPollInterval

    public init(store: Store) {
        self.store = store
    }

    /// The rows of conversation `id` with ticks, starting with the newest `limit` stored
    /// messages; new messages are added, never trimmed. Throws when the conversation does not
    /// exist or cannot be watched.
    public func messages(in id: ConversationID, limit: Int = 50) throws(StoreError) -> AsyncStream<[TimelineRow]> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: [TimelineRow].self, bufferingPolicy: .bufferingNewest(1))
        let watcher = try watchConversation(id, limit: limit) { state, _, _ in continuation.yield(state.rows) }
        continuation.onTermination = { _ in Self.stopLater(watcher) }
        return stream
    }

    /// Everything a live screen of conversation `id` shows (rows, counts, history, sync worker),
    /// once now and again after every change that alters it.
    public func states(in id: ConversationID, limit: Int = 50) throws(StoreError) -> AsyncStream<ConversationState> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ConversationState.self, bufferingPolicy: .bufferingNewest(1))
        let watcher = try watchConversation(id, limit: limit) { state, _, _ in continuation.yield(state) }
        continuation.onTermination = { _ in Self.stopLater(watcher) }
        return stream
    }

    /// Every change to conversation `id`, or to the whole store when `id` is nil, in the order
    /// they were seen. Nothing is sent for what was already there when the stream started.
    ///
    /// Returns once the watcher has read what is there (its first, silent read): a change
    /// written after this returns is reported. Before, a write in the moment between the watch
    /// and that first read became part of what "was already there", and `chatdir watch` could
    /// print its "watching" line and then miss it (seen once in a parallel test run).
    public func changes(in id: ConversationID?) throws(StoreError) -> AsyncStream<StoreChange> {
        let (stream, continuation) = AsyncStream.makeStream(of: StoreChange.self, bufferingPolicy: .unbounded)
        let ready = DispatchSemaphore(value: 0)
        let first = Atomic<Bool>(true)
        let signalFirst: @Sendable () -> Void = { if first.exchange(false, ordering: .relaxed) { ready.signal() } }
        let watcher: DirectoryWatcher
        if let id {
            watcher = try watchConversation(id, limit: store.manifest.segmentSize) { _, changes, _ in
                for change in changes { continuation.yield(change) }
                signalFirst()
            }
        } else {
            watcher = try watchStore { _, changes in
                for change in changes { continuation.yield(change) }
                signalFirst()
            }
        }
        continuation.onTermination = { _ in Self.stopLater(watcher) }
        // Bounded: a watcher thread that cannot read (out of memory) must not hang the caller.
        _ = ready.wait(timeout: .now() + 30)
        return stream
    }

    /// The conversation list (newest activity first), once now and again after every change.
    /// A change re-reads only the conversations it touched.
    public func summaries() throws(StoreError) -> AsyncStream<ConversationList> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ConversationList.self, bufferingPolicy: .bufferingNewest(1))
        let watcher = try watchStore { list, _ in continuation.yield(list) }
        continuation.onTermination = { _ in Self.stopLater(watcher) }
        return stream
    }

    // MARK: Conversation

    /// Watches one conversation's directory, `messages/` and `outbox/`; calls `deliver` on the
    /// watcher's thread with the state after the first read and after every change that altered
    /// something (with those changes, and whether it was a full re-read). When the watcher
    /// starts polling, the state says why from then on, and ``StoreChange/polling(_:)`` comes
    /// once, first among the changes.
    func watchConversation(
        _ id: ConversationID, limit: Int,
        deliver: @escaping @Sendable (ConversationState, [StoreChange], Bool) -> Void
    ) throws(StoreError) -> DirectoryWatcher {
        let conversation = try store.existingConversation(id)
        let cache = ThreadConfined(ConversationCache(conversation: conversation, me: store.userID, limit: limit))
        let first = Atomic<Bool>(true)
        let toldPolling = Atomic<Bool>(false)
        do {
            return try DirectoryWatcher(
                root: conversation.directory, depth: 1, idleInterval: idleInterval, pollInterval: pollInterval
            ) { batch in
                let cache = cache.value
                let state = {
                    var state = cache.state()
                    state.polling = batch.polling
                    return state
                }
                // A file that turned unreadable may change no row (the copy held so far stays):
                // its problem alone is reason to send the state.
                let problemsBefore = cache.problemList
                var news: [StoreChange] = []
                if let polling = batch.polling, !toldPolling.exchange(true, ordering: .relaxed) {
                    news.append(.polling(polling))
                }
                var changes: [StoreChange]
                if batch.rescan {
                    let isFirst = first.exchange(false, ordering: .relaxed)
                    changes = cache.reload()
                    if !isFirst { changes.insert(.resynced(id), at: 0) }
                    _ = cache.refreshSyncWorker()
                    _ = cache.refreshWorkerState()
                    if isFirst {
                        deliver(state(), news, true)
                        return
                    }
                } else if batch.isIdle {
                    changes = cache.refreshSyncWorker()
                } else {
                    changes = cache.apply(batch.changes) + cache.refreshSyncWorker()
                }
                changes = news + changes
                let workerMoved = cache.refreshWorkerState()
                if !changes.isEmpty || workerMoved || cache.problemList != problemsBefore {
                    deliver(state(), changes, batch.rescan)
                }
            }
        } catch {
            throw .system(error)
        }
    }

    // MARK: Store

    /// Watches `conversations/` and every conversation below it; calls `deliver` with the list
    /// and the changes, first at once, then after every change (``StoreChange/polling(_:)``
    /// once, first, when the watcher starts polling).
    func watchStore(deliver: @escaping @Sendable (ConversationList, [StoreChange]) -> Void) throws(StoreError)
        -> DirectoryWatcher
    {
        let feed = ThreadConfined(StoreFeed(store: store))
        do {
            // The store root too: `conversations/` may be made after the watch starts.
            return try DirectoryWatcher(
                root: store.root, depth: 3, idleInterval: idleInterval, pollInterval: pollInterval
            ) { batch in
                let changes = feed.value.handle(batch)
                let workerMoved = feed.value.refreshWorker()
                let invitationsMoved = feed.value.refreshInvitations()
                if feed.value.isFirst || !changes.isEmpty || workerMoved || invitationsMoved {
                    feed.value.isFirst = false
                    deliver(
                        ConversationList(
                            conversations: feed.value.list(), polling: feed.value.polling, worker: feed.value.worker,
                            invitations: feed.value.invitations),
                        changes)
                }
            }
        } catch {
            throw .system(error)
        }
    }
}
