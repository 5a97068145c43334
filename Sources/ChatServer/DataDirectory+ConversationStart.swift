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

    /// Starts conversation `id` (`POST /v1/conversations`) through its ``SegmentLog/start(_:)``:
    /// built hidden and renamed into place, so a crash leaves no conversation or a whole one,
    /// never a directory without `conversation.json` (which the next start would refuse). One
    /// start at a time (``starting``): two starts of one ID make one, and requests meanwhile see
    /// the table as it was until the start is durable.
    /// - Throws: ``ServerError/storage(_:)`` when a write failed; nothing was started.
    func startConversation(_ id: ConversationID, info: ConversationInfo) throws(ServerError) -> StartResult {
        try starting.withLock { started throws(ServerError) -> StartResult in
            if let existing = table.withLock({ $0[id] }) { return .exists(existing) }
            let final = Conversation(storeRoot: path, id: id, segmentSize: Self.segmentSize)
            do throws(StoreError) {
                try SegmentLog(final).start(info)
            } catch {
                throw .storage(error)
            }
            let log = try ConversationLog(
                id: id, info: info, conversation: final, positionsCommitter: positionsCommitter)
            table.withLock { $0[id] = log }
            started += 1
            return .started(log)
        }
    }
}
