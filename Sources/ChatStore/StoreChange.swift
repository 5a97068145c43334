import ChatDomain

/// One committed change to the store, as a watcher of the files sees it: what changed, in which
/// conversation, and which sequence or client message ID. `chatdir watch` prints these.
public enum StoreChange: Hashable, Sendable {
    /// A message was stored in a segment (new to this watcher).
    case messageAdded(ConversationID, Message)
    /// A stored message disappeared from its segment (a hand edit or a restore).
    case messageRemoved(ConversationID, sequence: Int)
    /// `send` queued a message, or a retry moved one to the back of the queue.
    case outboxAdded(ConversationID, OutboxEntry)
    /// An outbox message changed state (failed, retried, attempts counted).
    case outboxChanged(ConversationID, OutboxEntry)
    /// An outbox file was removed: delivered (its message is in a segment) or dropped.
    case outboxRemoved(ConversationID, ClientMessageID)
    /// `positions.json` changed: ticks may have moved.
    case positionsChanged(ConversationID)
    /// The read position waiting to be sent to the server (`outbox/read.json`) changed.
    case readWanted(ConversationID, upTo: Int?)
    /// `conversation.json` changed (title or members).
    case detailsChanged(ConversationID)
    /// A segment older than the ones being followed changed (history being fetched); its file name.
    case historyChanged(ConversationID, segment: String)
    case conversationAdded(ConversationID)
    case conversationRemoved(ConversationID)
    /// Events were lost (inotify queue overflow) and the conversation was read again; the
    /// changes found by comparing follow this one.
    case resynced(ConversationID?)
    /// A sync worker took the store's lock (its process ID) or let it go (nil).
    case syncWorker(pid: Int32?)
    /// The kernel refused an inotify watch (a per-user limit reached): from now on the watcher
    /// also finds changes by looking at the files on a timer. Not a change to the files; sent
    /// once, before the changes of the batch where it happened, for the reader to say so.
    case polling(WatchFallback)

    /// The conversation the change belongs to; nil for store-wide changes.
    public var conversation: ConversationID? {
        switch self {
        case .messageAdded(let id, _), .messageRemoved(let id, _), .outboxAdded(let id, _), .outboxChanged(let id, _),
            .outboxRemoved(let id, _), .positionsChanged(let id), .readWanted(let id, _), .detailsChanged(let id),
            .historyChanged(let id, _), .conversationAdded(let id), .conversationRemoved(let id):
            id
        case .resynced(let id):
            id
        case .syncWorker, .polling:
            nil
        }
    }
}
