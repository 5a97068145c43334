import ChatDomain
import ChatSystem

/// The observer's copy of one conversation, kept up to date file by file.
///
/// A refresh after a change reads only the files the change names: one segment, one outbox
/// file, `positions.json`. Only a rescan (the first read, an overflow) reads everything, and even
/// then only the segments from the first one shown onwards. Every refresh returns what changed
/// compared with the previous copy, so `watch` can name sequences and IDs.
///
/// Not thread-safe: it lives on one watcher's thread.
final class ConversationCache {
    let conversation: Conversation
    let me: UserID
    let limit: Int
    let storeRoot: String

    /// Sequences below this are not followed (nil: none stored yet when the window was chosen).
    private(set) var floor: Int?
    private var loaded = false
    private var segments: [SegmentRange: [Message]] = [:]
    private var olderSegments = false
    private var outbox: [String: OutboxEntry] = [:]
    private var info: ConversationInfo?
    private var positions: Positions?
    private var wantedRead: Int?
    private var problems: [String: String] = [:]
    /// Segments removed or emptied since the last full read, with what they held: git replaces
    /// a file by removing it and writing the new one in place, and a new one with conflict
    /// markers in it must not blank the screen (its problem is shown beside the copy held before).
    private var removedSegments: [SegmentRange: [Message]] = [:]
    private var exists = true
    private(set) var syncWorker: Int32?
    /// The worker's state as of the last ``refreshWorkerState()``.
    private(set) var worker = SyncWorkerState()
    /// Counts the changes met to stored messages older than the window
    /// (``ConversationState/olderRevision``).
    private(set) var olderRevision = 0

    /// - Parameters:
    ///   - limit: how many of the newest stored messages to start with.
    ///   - reportInitialContents: report what the first read finds as changes (for a
    ///     conversation that appeared while the store was being watched).
    init(conversation: Conversation, me: UserID, limit: Int, reportInitialContents: Bool = false) {
        self.conversation = conversation
        self.me = me
        self.limit = max(1, limit)
        storeRoot = conversation.storeRoot
        if reportInitialContents {
            loaded = true
            floor = 1
        }
    }

    // MARK: Refreshing

    /// Reads everything again and returns what differs from the copy held so far (nothing on the first read).
    func reload() -> [StoreChange] {
        let reportChanges = loaded
        let oldMessages = allMessages()
        let oldOutbox = outbox
        let oldPositions = positions
        let oldInfo = info
        let oldWanted = wantedRead
        problems = [:]
        removedSegments = [:]
        exists = conversation.exists

        let ranges =
            note(path: StoreLayout.messages) { () throws(StoreError) in try conversation.segmentRanges() } ?? []
        segments = [:]
        if !loaded {
            // The window: the newest `limit` messages; everything from there on is followed.
            var collected = 0
            var remaining = ranges
            while collected < limit, let range = remaining.popLast() {
                let messages = readSegment(range)
                segments[range] = messages
                collected += messages.count
            }
            let all = allMessages()
            if all.count > limit {
                floor = all[all.count - limit].sequence
            } else {
                floor = all.first?.sequence ?? segments.keys.min()?.first
            }
            olderSegments = !remaining.isEmpty
        } else {
            let from = floor ?? 1
            for range in ranges where range.last >= from { segments[range] = readSegment(range) }
            olderSegments = ranges.contains { $0.first < from }
        }
        outbox = [:]
        for name
            in (note(path: StoreLayout.outbox) { () throws(StoreError) in try conversation.outboxFileNames() } ?? [])
        {
            if let entry = readOutboxEntry(name) { outbox[name] = entry }
        }
        info = readInfo()
        positions = readPositions()
        wantedRead = readWanted()
        loaded = true
        guard reportChanges else { return [] }
        // A rescan cannot tell what changed below the window: a screen holding older rows reads them again.
        olderRevision += 1

        var changes: [StoreChange] = []
        let id = conversation.id
        let newMessages = allMessages()
        let oldBySequence = Dictionary(oldMessages.map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
        let newSequences = Set(newMessages.map(\.sequence))
        for message in newMessages where oldBySequence[message.sequence] != message {
            changes.append(.messageAdded(id, message))
        }
        for message in oldMessages where !newSequences.contains(message.sequence) {
            changes.append(.messageRemoved(id, sequence: message.sequence))
        }
        changes += outboxChanges(old: Array(oldOutbox.values), new: Array(outbox.values))
        if positions != oldPositions { changes.append(.positionsChanged(id)) }
        if info != oldInfo { changes.append(.detailsChanged(id)) }
        if wantedRead != oldWanted { changes.append(.readWanted(id, upTo: wantedRead)) }
        return changes
    }

    /// Applies the changes one watcher batch names (paths relative to the conversation's
    /// directory), reading only those files. Returns what changed.
    func apply(_ changes: [WatchedChange]) -> [StoreChange] {
        guard loaded else { return reload() }
        let id = conversation.id
        var result: [StoreChange] = []
        var added: [Message] = []
        var oldOutbox: [OutboxEntry] = []
        var newOutbox: [OutboxEntry] = []
        for change in changes {
            switch change.directory {
            case "":
                switch change.name {
                case StoreLayout.positions:
                    let old = positions
                    positions = readPositions()
                    if positions != old { result.append(.positionsChanged(id)) }
                case StoreLayout.conversationInfo:
                    let old = info
                    info = readInfo()
                    if info != old { result.append(.detailsChanged(id)) }
                case StoreLayout.messages, StoreLayout.outbox:
                    // A whole directory came or went: its files were reported one by one when it
                    // came; when it went, nothing of it is left.
                    if change.kind == .directoryRemoved { return result + reload() }
                default:
                    break
                }
            case StoreLayout.messages:
                guard let range = SegmentRange(fileName: change.name) else { continue }
                if range.last < (floor ?? 1) {
                    olderSegments = true
                    olderRevision += 1
                    result.append(.historyChanged(id, segment: change.name))
                    continue
                }
                let old = segments[range] ?? []
                let new: [Message]
                if change.kind == .removed {
                    new = []
                    if let held = segments[range] { removedSegments[range] = held }
                    problems[relative(StoreLayout.messages + "/" + change.name)] = nil
                } else {
                    let held = segments[range].flatMap { $0.isEmpty ? nil : $0 } ?? removedSegments[range]
                    new = readSegment(range, keeping: held)
                    // Emptied, as a tool writing it in place does first: like a removal.
                    removedSegments[range] = new.isEmpty ? held : nil
                }
                segments[range] = new.isEmpty && change.kind == .removed ? nil : new
                let oldBySequence = Dictionary(old.map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
                let newSequences = Set(new.map(\.sequence))
                // A segment the window begins inside: its part below the window changed (a
                // redaction rewrote a record there, say).
                if let floor, range.first < floor,
                    old.filter({ $0.sequence < floor }) != new.filter({ $0.sequence < floor })
                {
                    olderRevision += 1
                }
                added += new.filter { oldBySequence[$0.sequence] != $0 }
                for message in old where !newSequences.contains(message.sequence) {
                    result.append(.messageRemoved(id, sequence: message.sequence))
                }
            case StoreLayout.outbox:
                if change.name == StoreLayout.readPosition {
                    let old = wantedRead
                    wantedRead = readWanted()
                    if wantedRead != old { result.append(.readWanted(id, upTo: wantedRead)) }
                    continue
                }
                guard OutboxFile.parseName(change.name) != nil else { continue }
                if let old = outbox[change.name] { oldOutbox.append(old) }
                let new = change.kind == .removed ? nil : readOutboxEntry(change.name, keeping: outbox[change.name])
                if change.kind == .removed { problems[relative(StoreLayout.outbox + "/" + change.name)] = nil }
                outbox[change.name] = new
                if let new { newOutbox.append(new) }
            default:
                break
            }
        }
        if editsOlderMessage(added) { olderRevision += 1 }
        // New messages in sequence order, whatever order their files changed in.
        return added.sorted { $0.sequence < $1.sequence }.map { .messageAdded(id, $0) } + result
            + outboxChanges(old: oldOutbox, new: newOutbox)
    }

    /// Whether one of `added` is an edit of a message below the window (none of the window's
    /// originals is its target): the row that shows it is one a screen read on its own.
    private func editsOlderMessage(_ added: [Message]) -> Bool {
        let edits = added.compactMap(\.replaces)
        guard !edits.isEmpty else { return false }
        let shown = Set(allMessages().lazy.filter { $0.replaces == nil }.compactMap(\.eventID))
        return edits.contains { !shown.contains($0) }
    }

    /// Checks whether a sync worker holds the lock; returns the change when that moved.
    func refreshSyncWorker() -> [StoreChange] {
        let holder = StoreLock.holder(storeRoot: storeRoot)
        guard holder != syncWorker else { return [] }
        syncWorker = holder
        return [.syncWorker(pid: holder)]
    }

    /// Reads `.sync-status` again (after ``refreshSyncWorker()``); returns whether what a screen
    /// shows of the worker changed. Not a ``StoreChange``: the figures are no change to the files.
    func refreshWorkerState() -> Bool {
        let new = SyncWorkerState.read(
            storeRoot: storeRoot, holder: syncWorker, now: Int64(Clock.nanosecondsSince1970() / 1_000_000))
        defer { worker = new }
        return !new.looksLike(worker, in: conversation.id)
    }

    // MARK: The state

    /// The files that could not be read, each `path:line: what to do`, in path order.
    var problemList: [String] { problems.keys.sorted().compactMap { problems[$0] } }

    func state() -> ConversationState {
        let messages = allMessages()
        let members: [UserID]
        if let info {
            members = info.members
        } else {
            var seen = Set(positions?.entries.map(\.member) ?? [])
            seen.formUnion(messages.map(\.senderID))
            seen.insert(me)
            members = seen.sorted()
        }
        let entries = outbox.values.sorted { ($0.ordinal, $0.clientMessageID) < ($1.ordinal, $1.clientMessageID) }
        let rows = timeline(messages: messages, outbox: entries, positions: positions, members: members, me: me)
        let from = floor ?? 1
        let hasOlder = olderSegments || segments.values.contains { ($0.first?.sequence ?? from) < from }
        let pending = entries.filter { $0.state == .pending }.count
        return ConversationState(
            id: conversation.id, info: info, members: members, rows: rows, hasOlder: hasOlder,
            pending: pending, failed: entries.count - pending, positionsLoaded: positions != nil,
            syncWorker: syncWorker, problems: problemList, exists: exists,
            positions: positions, worker: worker, olderRevision: olderRevision
        )
    }

    // MARK: Reading one file

    private func relative(_ name: String) -> String { conversation.relativePath + "/" + name }

    /// The followed messages, ascending by sequence.
    private func allMessages() -> [Message] {
        let from = floor ?? 1
        var result: [Message] = []
        for range in segments.keys.sorted() {
            guard let messages = segments[range] else { continue }
            if range.first >= from {
                result += messages
            } else {
                result += messages.filter { $0.sequence >= from }
            }
        }
        return result
    }

    /// Runs a read; on failure records the problem under `path` and returns nil.
    private func note<T>(path: String, _ body: () throws(StoreError) -> T) -> T? {
        do {
            let value = try body()
            problems[relative(path)] = nil
            return value
        } catch {
            if case .system(let systemError) = error, systemError.isNotFound { return nil }
            problems[relative(path)] = error.description
            return nil
        }
    }

    /// A segment's sound messages. A damaged file is reported; with `keeping`, the copy held so
    /// far stays on screen instead (a tool writing in place may be half-way through).
    private func readSegment(_ range: SegmentRange, keeping old: [Message]? = nil) -> [Message] {
        let name = StoreLayout.messages + "/" + range.fileName
        guard let bytes = note(path: name, { () throws(StoreError) in try conversation.segmentBytes(range) }) ?? nil
        else { return [] }
        let decoded = SegmentFile.decode(
            bytes, path: relative(name), range: range, reportLayout: false,
            protocol: conversation.storeProtocol)
        if let problem = decoded.firstError {
            problems[relative(name)] = problem.description
            if let old { return old }
        }
        return decoded.messages
    }

    private func readOutboxEntry(_ name: String, keeping old: OutboxEntry? = nil) -> OutboxEntry? {
        let path = StoreLayout.outbox + "/" + name
        guard let bytes = note(path: path, { () throws(StoreError) in try conversation.read(path) }) ?? nil else {
            return nil
        }
        let decoded = OutboxFile.decode(bytes, name: name, path: relative(path))
        if let problem = decoded.problems.first(where: { $0.severity == .error }) {
            problems[relative(path)] = problem.description
            return old
        }
        return decoded.entry
    }

    private func readInfo() -> ConversationInfo? {
        note(path: StoreLayout.conversationInfo) { () throws(StoreError) in try conversation.info() } ?? nil
    }

    private func readPositions() -> Positions? {
        note(path: StoreLayout.positions) { () throws(StoreError) in try conversation.positions() } ?? positions
    }

    private func readWanted() -> Int? {
        note(path: StoreLayout.outbox + "/" + StoreLayout.readPosition) { () throws(StoreError) in
            try conversation.wantedReadPosition()
        } ?? nil
    }

    /// Outbox differences by client message ID: a retry (removed under one name, added under
    /// another) is one change, not two.
    private func outboxChanges(old: [OutboxEntry], new: [OutboxEntry]) -> [StoreChange] {
        let id = conversation.id
        let oldByID = Dictionary(old.map { ($0.clientMessageID, $0) }, uniquingKeysWith: { _, last in last })
        let newByID = Dictionary(new.map { ($0.clientMessageID, $0) }, uniquingKeysWith: { _, last in last })
        var changes: [StoreChange] = []
        for entry in new.sorted(by: { $0.ordinal < $1.ordinal }) where oldByID[entry.clientMessageID] != entry {
            changes.append(oldByID[entry.clientMessageID] == nil ? .outboxAdded(id, entry) : .outboxChanged(id, entry))
        }
        for entry in old.sorted(by: { $0.ordinal < $1.ordinal }) where newByID[entry.clientMessageID] == nil {
            changes.append(.outboxRemoved(id, entry.clientMessageID))
        }
        return changes
    }
}
