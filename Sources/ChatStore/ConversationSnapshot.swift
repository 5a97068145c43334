import ChatDomain

/// One consistent read of a conversation, ready to turn into rows.
public struct ConversationSnapshot: Sendable, Hashable {
    public var id: ConversationID
    public var info: ConversationInfo?
    /// Stored messages, ascending by sequence.
    public var messages: [Message]
    /// Whether older messages are stored than the ones in ``messages``.
    public var hasOlder: Bool
    /// Outbox entries in queue order (empty when scrolled back with `before`).
    public var outbox: [OutboxEntry]
    public var positions: Positions?
    /// Edits stored after ``messages`` of messages among them (a page scrolled back, Matrix
    /// stores only): applied to the rows, and rows of none.
    public var laterEdits: [Message] = []

    /// The rows every screen shows: sequenced messages with ticks, then the outbox.
    public func rows(me: UserID) -> [TimelineRow] {
        timeline(
            messages: laterEdits.isEmpty ? messages : messages + laterEdits, outbox: outbox, positions: positions,
            members: members(me: me), me: me)
    }

    /// Members from `conversation.json`; without it, everyone seen in positions and messages.
    public func members(me: UserID) -> [UserID] {
        if let info { return info.members }
        var seen = Set(positions?.entries.map(\.member) ?? [])
        seen.formUnion(messages.map(\.senderID))
        seen.insert(me)
        return seen.sorted()
    }
}
