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
    /// next start would refuse). One start at a time (``starting``): two starts of one ID make
    /// one, and requests meanwhile see the table as it was until the start is durable.
    /// - Throws: ``ServerError/storage(_:)`` when a write failed; nothing was started.
    func startConversation(_ id: ConversationID, info: ConversationInfo) throws(ServerError) -> StartResult {
        try starting.withLock { started throws(ServerError) -> StartResult in
            if let existing = table.withLock({ $0[id] }) { return .exists(existing) }
            let conversations = path + "/" + StoreLayout.conversations
            let building = DurableFile.hiddenBuildPath(for: id.rawValue, in: conversations)
            let final = Conversation(storeRoot: path, id: id, segmentSize: Self.segmentSize)
            do throws(SystemError) {
                try DurableFile.makeDirectories(building + "/" + StoreLayout.messages)
                try DurableFile.write(info.encode(), to: StoreLayout.conversationInfo, in: building)
                try Sys.fsyncPath(building)
                try Sys.rename(building, final.directory)
                try Sys.fsyncPath(conversations)
            } catch {
                DurableFile.removeHiddenBuild(building)
                throw .storage(.system(error))
            }
            let log = try ConversationLog(id: id, info: info, conversation: final, positionsCommitter: positionsCommitter)
            table.withLock { $0[id] = log }
            started += 1
            return .started(log)
        }
    }
}
