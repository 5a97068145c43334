import ChatDomain
import ChatStore
import ChatSystem

extension DataDirectory {
    /// What ``startConversation(_:info:)`` found.
    enum StartResult: Sendable {
        /// Made now, durably.
        case started(ConversationLog)
        /// The ID was taken already (by this creation sent before, or by another).
        case exists(ConversationLog)
    }

    /// Starts conversation `id` (`POST /v1/conversations`): its directory is built hidden
    /// (`conversations/.<id>.<pid>.<random>.tmp/` with `conversation.json` and `messages/`), each
    /// file synced, then renamed into place and the rename synced, so a crash leaves no
    /// conversation or a whole one, never a directory without `conversation.json` (which the
    /// next start would refuse). Under the table's lock: two starts of one ID make one.
    /// - Throws: ``ServerError/storage(_:)`` when a write failed; nothing was started.
    func startConversation(_ id: ConversationID, info: ConversationInfo) throws(ServerError) -> StartResult {
        try table.withLock { table throws(ServerError) -> StartResult in
            if let existing = table[id] { return .exists(existing) }
            let conversations = path + "/" + StoreLayout.conversations
            let building = conversations + "/." + id.rawValue + "." + String(Sys.currentProcessID) + "." + String(UInt32.random(in: 0...UInt32.max)) + ".tmp"
            let final = Conversation(storeRoot: path, id: id, segmentSize: Self.segmentSize)
            do throws(SystemError) {
                try DurableFile.makeDirectories(building + "/" + StoreLayout.messages)
                try DurableFile.write(info.encode(), to: StoreLayout.conversationInfo, in: building)
                try Sys.fsyncPath(building)
                try Sys.rename(building, final.directory)
                try Sys.fsyncPath(conversations)
            } catch {
                Self.removeUnfinishedStart(building)
                throw .storage(.system(error))
            }
            let log = try ConversationLog(id: id, info: info, conversation: final)
            table[id] = log
            return .started(log)
        }
    }

    /// Removes what a start that did not finish left in `conversations/` (a hidden `.tmp`
    /// directory: `conversation.json`, `messages/`, temp files). Best effort; other hidden
    /// names are left alone.
    static func removeUnfinishedStart(_ directory: String) {
        guard directory.hasSuffix(".tmp"), Sys.kind(of: directory) == .directory else { return }
        let messages = directory + "/" + StoreLayout.messages
        for name in (try? Sys.listDirectory(messages)) ?? [] { _ = try? Sys.unlink(messages + "/" + name) }
        _ = try? Sys.removeDirectory(messages)
        for name in (try? Sys.listDirectory(directory)) ?? [] { _ = try? Sys.unlink(directory + "/" + name) }
        _ = try? Sys.removeDirectory(directory)
    }
}
