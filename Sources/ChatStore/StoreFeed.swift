import ChatDomain
import ChatSystem

/// The store-wide copy: one ``ConversationCache`` (newest segment only) and one summary per
/// conversation; a change re-reads only the conversation it names.
final class StoreFeed {
    let store: Store
    var caches: [ConversationID: ConversationCache] = [:]
    var summaries: [ConversationID: ConversationSummary] = [:]
    var syncWorker: Int32?
    /// The worker's state as of the last batch (``SyncWorkerState``).
    var worker = SyncWorkerState()
    var isFirst = true
    /// Why the watcher polls, from the first batch that said so (see ``WatchBatch/polling``).
    var polling: WatchFallback?
    /// `.invitations` as last read.
    var invitations: [Invitation] = []

    init(store: Store) {
        self.store = store
    }

    func list() -> [ConversationSummary] {
        summaries.values.sorted(by: ConversationSummary.listOrder)
    }

    func handle(_ batch: WatchBatch) -> [StoreChange] {
        var changes: [StoreChange] = []
        if polling == nil, let reason = batch.polling {
            polling = reason
            changes.append(.polling(reason))
        }
        if batch.rescan {
            if !isFirst { changes.append(.resynced(nil)) }
            changes += rescanAll(reportNew: !isFirst)
        } else if !batch.isIdle {
            var touched: [ConversationID: [WatchedChange]] = [:]
            var order: [ConversationID] = []
            for change in batch.changes {
                let parts = change.path.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
                guard parts.count >= 2, parts[0] == Substring(StoreLayout.conversations),
                    let id = try? ConversationID(String(parts[1]))
                else {
                    if change.path == StoreLayout.conversations { changes += rescanAll(reportNew: true) }
                    continue
                }
                if touched[id] == nil { order.append(id) }
                if parts.count == 2 {
                    // The conversation's directory itself came or went.
                    touched[id, default: []].append(WatchedChange(directory: "", name: "", kind: change.kind))
                    continue
                }
                let inner = String(parts[2])
                let slash = inner.lastIndex(of: "/")
                let directory = slash.map { String(inner[..<$0]) } ?? ""
                let name = slash.map { String(inner[inner.index(after: $0)...]) } ?? inner
                touched[id, default: []].append(WatchedChange(directory: directory, name: name, kind: change.kind))
            }
            for id in order {
                changes += refresh(id, changes: touched[id] ?? [])
            }
        }
        let holder = StoreLock.holder(storeRoot: store.root)
        if holder != syncWorker {
            syncWorker = holder
            if !isFirst { changes.append(.syncWorker(pid: holder)) }
        }
        return changes
    }

    /// Reads `.sync-status` again; returns whether what the list shows of the worker changed
    /// (no ``StoreChange``: the worker's figures are no change to the files).
    func refreshWorker() -> Bool {
        let new = SyncWorkerState.read(
            storeRoot: store.root, holder: syncWorker, now: Int64(Clock.nanosecondsSince1970() / 1_000_000))
        defer { worker = new }
        return !new.looksLike(worker)
    }

    /// Reads `.invitations` again, as ``refreshWorker()`` reads `.sync-status`: with every
    /// batch, the idle ones included (the watcher passes over hidden names, so no change to it
    /// is reported). Returns whether they changed (no ``StoreChange``: they are no
    /// conversation's files).
    func refreshInvitations() -> Bool {
        let new = InvitationsFile.read(storeRoot: store.root)
        defer { invitations = new }
        return new != invitations
    }

    private func refresh(_ id: ConversationID, changes: [WatchedChange]) -> [StoreChange] {
        let conversation = store.conversation(id)
        guard conversation.exists else {
            guard caches.removeValue(forKey: id) != nil else { return [] }
            summaries[id] = nil
            return [.conversationRemoved(id)]
        }
        var result: [StoreChange] = []
        if let cache = caches[id] {
            let inner = changes.filter { !$0.name.isEmpty }
            result = inner.count < changes.count ? cache.reload() : cache.apply(inner)
        } else {
            let cache = ConversationCache(
                conversation: conversation, me: store.userID, limit: store.manifest.segmentSize,
                reportInitialContents: true)
            caches[id] = cache
            result = [.conversationAdded(id)] + cache.reload()
        }
        if !result.isEmpty || summaries[id] == nil { summaries[id] = conversation.summary(me: store.userID) }
        return result
    }

    private func rescanAll(reportNew: Bool) -> [StoreChange] {
        let ids = Set((try? store.conversationIDs()) ?? [])
        var changes: [StoreChange] = []
        for id in caches.keys where !ids.contains(id) {
            caches[id] = nil
            summaries[id] = nil
            changes.append(.conversationRemoved(id))
        }
        for id in ids.sorted() {
            if let cache = caches[id] {
                changes += cache.reload()
            } else {
                let cache = ConversationCache(
                    conversation: store.conversation(id), me: store.userID, limit: store.manifest.segmentSize,
                    reportInitialContents: reportNew)
                caches[id] = cache
                let found = cache.reload()
                if reportNew { changes += [.conversationAdded(id)] + found }
            }
            summaries[id] = store.conversation(id).summary(me: store.userID)
        }
        return changes
    }
}
