import ChatDomain
import ChatSystem

extension Store {
    /// Starts conversation `id` on this device (`chatdir create`): its directory with
    /// `conversation.json` (as the sync worker writes it), `messages/` and `outbox/create.json`
    /// (``QueuedCreation``), so `send` to it works at once, offline. Needs no store lock: the
    /// directory is built hidden (`conversations/.<id>.<pid>.<random>.tmp/`, every file synced)
    /// and renamed into place, so a running worker sees no conversation or a whole one with its
    /// creation queued, never one without it (which it would take for the server's).
    /// - Parameter members: the other members; this store's user is added.
    /// - Throws: ``StoreError/alreadyExists(path:)`` when the conversation is there already;
    ///   ``StoreError/system(_:)`` when a write failed (nothing was started).
    @discardableResult
    public func startConversation(
        _ id: ConversationID, title: String, members: [UserID], now: UInt64 = Clock.nanosecondsSince1970()
    ) throws(StoreError) -> QueuedCreation {
        let conversation = conversation(id)
        // A link or a file where the folder would go is named as such, not as a conversation.
        if try conversation.requirePlainDirectories() { throw .alreadyExists(path: conversation.relativePath) }
        let creation = QueuedCreation(
            title: title, members: members + [userID], createdAt: Clock.iso8601(nanoseconds: now))
        do throws(SystemError) {
            try DurableFile.createConversation(
                conversation, info: ConversationInfo(title: title, members: creation.members), creation: creation)
        } catch {
            // Only the rename fails so: another `create` (or the worker) put the conversation there first.
            if error.errno == .fileExists || error.errno == .directoryNotEmpty {
                throw .alreadyExists(path: conversation.relativePath)
            }
            throw .system(error)
        }
        return creation
    }
}

extension Conversation {
    /// Queues a failed creation again (`chatdir create ID --retry`): pending, without its error,
    /// for the next sync. Returns false when it was pending already (nothing changed).
    /// - Throws: ``StoreError/unknownConversation(_:)`` when the conversation has no queued creation.
    public func requeueCreation() throws(StoreError) -> Bool {
        try requirePlainDirectories()
        guard var creation = try queuedCreation() else { throw .unknownConversation(id) }
        guard creation.state == .failed else { return false }
        creation.state = .pending
        creation.error = nil
        try system { () throws(SystemError) in
            try DurableFile.write(creation.encode(), to: StoreLayout.creation, in: outboxDirectory)
        }
        return true
    }
}

extension StoreWriter {
    /// Forgets the queued creation once the server has the conversation.
    public func removeCreation(in id: ConversationID) throws(StoreError) {
        let outbox = try checkedConversation(id).outboxDirectory
        try system { () throws(SystemError) in
            do throws(SystemError) { try Sys.unlink(outbox + "/" + StoreLayout.creation) } catch {
                if !error.isNotFound { throw error }
                return
            }
            try Sys.fsyncPath(outbox)
        }
    }

    /// Marks the queued creation failed with the server's reason; the conversation's messages
    /// stay as they are (pending), waiting for it.
    public func markCreationFailed(in id: ConversationID, reason: String) throws(StoreError) {
        let conversation = try checkedConversation(id)
        guard var creation = try conversation.queuedCreation() else { return }
        creation.state = .failed
        creation.error = reason
        try system { () throws(SystemError) in
            try DurableFile.write(creation.encode(), to: StoreLayout.creation, in: conversation.outboxDirectory)
        }
    }
}

extension DurableFile {
    /// Makes `conversation`'s directory whole in one rename, so a crash leaves no conversation
    /// or a whole one, never a directory without `conversation.json`: built hidden
    /// (``hiddenBuildPath(for:in:)``) with `messages/`, `outbox/create.json` when `creation` is
    /// given, and `conversation.json`, each file synced, then the build synced, renamed into
    /// `conversations/` and the rename synced. The one way a conversation starts, on a device
    /// (``Store/startConversation(_:title:members:now:)``, with its queued creation) and on the
    /// server (``SegmentLog/start(_:)``, without).
    /// - Throws: the call that failed; a failure up to the rename removes the build again. Only
    ///   the rename fails with EEXIST or ENOTEMPTY: the conversation's directory is there already.
    static func createConversation(_ conversation: Conversation, info: ConversationInfo, creation: QueuedCreation?)
        throws(SystemError)
    {
        let parent = conversation.storeRoot + "/" + StoreLayout.conversations
        let building = hiddenBuildPath(for: conversation.id.rawValue, in: parent)
        do throws(SystemError) {
            try makeDirectories(building + "/" + StoreLayout.messages)
            if let creation {
                try makeDirectories(building + "/" + StoreLayout.outbox)
                try write(creation.encode(), to: StoreLayout.creation, in: building + "/" + StoreLayout.outbox)
            }
            try write(info.encode(), to: StoreLayout.conversationInfo, in: building)
            try Sys.fsyncPath(building)
            try Sys.rename(building, conversation.directory)
        } catch {
            removeHiddenBuild(building)
            throw error
        }
        try Sys.fsyncPath(parent)
    }

    /// Where a directory `name` is built before its rename into `parent`:
    /// `parent/.<name>.<pid>.<random>.tmp` (hidden, so no reader lists it).
    public static func hiddenBuildPath(for name: String, in parent: String) -> String {
        parent + "/." + name + "." + String(Sys.currentProcessID) + "." + String(UInt32.random(in: 0...UInt32.max))
            + ".tmp"
    }

    /// Removes a hidden build of a conversation that did not finish: its files, `messages/`,
    /// `outbox/`, itself. Best effort; only a directory whose name ends in `.tmp`.
    public static func removeHiddenBuild(_ directory: String) {
        guard directory.hasSuffix(".tmp"), Sys.kind(of: directory) == .directory else { return }
        for sub in [StoreLayout.messages, StoreLayout.outbox] {
            let path = directory + "/" + sub
            for name in (try? Sys.listDirectory(path)) ?? [] { _ = try? Sys.unlink(path + "/" + name) }
            _ = try? Sys.removeDirectory(path)
        }
        for name in (try? Sys.listDirectory(directory)) ?? [] { _ = try? Sys.unlink(directory + "/" + name) }
        _ = try? Sys.removeDirectory(directory)
    }
}
