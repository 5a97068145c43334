import ChatDomain

/// Live messages the state machines accepted from one batch of events and the driver has not
/// committed yet: one ``SyncStore/saveFromServer(_:in:after:before:what:)`` per conversation
/// then writes each touched segment once, however many events brought them.
struct LiveBatch {
    struct Pending {
        /// By sequence: a duplicate event's message is kept once.
        var messages: [Int: Message] = [:]
        /// How many ``ConversationLiveState/Action/save(_:_:)`` actions went in, each owed its
        /// ``ConversationLiveState/Event/saved(_:)`` (or failure) after the commit.
        var saves = 0

        var ascending: [Message] { messages.values.sorted { $0.sequence < $1.sequence } }
    }

    /// Conversations in the order their first save came, and what each has pending.
    private(set) var order: [ConversationID] = []
    private(set) var pending: [ConversationID: Pending] = [:]

    var isEmpty: Bool { order.isEmpty }

    /// Whether a message of `id` at or below `sequence` waits here: a position that far must
    /// not be stored before the commit.
    func holds(in id: ConversationID, atOrBelow sequence: Int) -> Bool {
        pending[id]?.messages.keys.contains { $0 <= sequence } ?? false
    }

    /// Takes one save's messages; returns false, taking nothing, when one of them has a sequence
    /// the batch holds another record for (that conflict is the store's check to report, against
    /// what is committed: commit first, then add).
    mutating func add(_ messages: [Message], in id: ConversationID) -> Bool {
        var entry = pending[id] ?? Pending()
        for message in messages where entry.messages[message.sequence].map({ $0 != message }) == true { return false }
        if pending[id] == nil { order.append(id) }
        for message in messages { entry.messages[message.sequence] = message }
        entry.saves += 1
        pending[id] = entry
        return true
    }
}
