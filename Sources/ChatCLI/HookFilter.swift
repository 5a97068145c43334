import ChatDomain
import ChatStore

/// Decides which store changes run a `watch --exec` hook: the kinds asked for with `--on`, each
/// event once. A message seen again (a resync after an inotify overflow re-reads the files; a
/// catch-up fills a hole out of order) is known by its sequence; a failure by its client
/// message ID and attempt count; a read by the position it reached.
///
/// Starts from "now": what the store holds when watch starts never runs a hook, and what
/// arrived while watch was not running runs none after a restart.
struct HookFilter: Sendable {
    var kinds: Set<HookEvent.Kind>
    var me: UserID
    /// The conversation's title, read when first needed and again after `details` changes.
    var readTitle: @Sendable (ConversationID) -> String
    /// Other members' read positions as the store holds them now.
    var readPositions: @Sendable (ConversationID) -> [UserID: Int]

    private var seenMessages: [ConversationID: Set<Int>] = [:]
    private var seenFailures: Set<String> = []
    private var positions: [ConversationID: [UserID: Int]] = [:]
    private var titles: [ConversationID: String] = [:]

    init(
        kinds: Set<HookEvent.Kind>, me: UserID, readTitle: @escaping @Sendable (ConversationID) -> String,
        readPositions: @escaping @Sendable (ConversationID) -> [UserID: Int]
    ) {
        self.kinds = kinds
        self.me = me
        self.readTitle = readTitle
        self.readPositions = readPositions
    }

    /// Remembers `conversation`'s read positions as they are, so only later moves are events.
    mutating func start(_ conversation: ConversationID) {
        if kinds.contains(.read) { positions[conversation] = readPositions(conversation) }
    }

    /// The hook runs that `change` calls for (none, or one per member whose read moved).
    mutating func events(for change: StoreChange) -> [HookEvent] {
        switch change {
        case .messageAdded(let id, let message):
            let kind: HookEvent.Kind = message.senderID == me ? .mine : .message
            // A Matrix edit is no new message (its text shows on the message it edits), and a
            // redacted one has nothing left to tell.
            guard message.replaces == nil, !message.redacted else { return [] }
            guard kinds.contains(kind), seenMessages[id, default: []].insert(message.sequence).inserted else {
                return []
            }
            return [
                HookEvent(
                    kind: kind, conversation: id, title: title(id), sender: message.senderID,
                    sequence: message.sequence, text: message.text)
            ]
        case .outboxAdded(let id, let entry), .outboxChanged(let id, let entry):
            guard kinds.contains(.failed), entry.state == .failed,
                seenFailures.insert("\(id)/\(entry.clientMessageID)/\(entry.attempts)").inserted
            else { return [] }
            return [
                HookEvent(
                    kind: .failed, conversation: id, title: title(id), sender: me, sequence: nil,
                    clientMessageID: entry.clientMessageID, error: entry.error, text: entry.text)
            ]
        case .positionsChanged(let id):
            guard kinds.contains(.read) else { return [] }
            let now = readPositions(id)
            var before = positions[id] ?? [:]
            var events: [HookEvent] = []
            for (member, read) in now.sorted(by: { $0.key.rawValue < $1.key.rawValue })
            where member != me && read > before[member, default: 0] {
                before[member] = read
                events.append(
                    HookEvent(kind: .read, conversation: id, title: title(id), sender: member, sequence: read, text: "")
                )
            }
            positions[id] = before
            return events
        case .detailsChanged(let id):
            titles[id] = nil
            return []
        case .conversationAdded(let id):
            // A conversation that arrives with history: only reads after this count.
            start(id)
            return []
        case .conversationRemoved(let id):
            titles[id] = nil
            return []
        default:
            return []
        }
    }

    private mutating func title(_ id: ConversationID) -> String {
        if let title = titles[id] { return title }
        let title = readTitle(id)
        titles[id] = title
        return title
    }
}
