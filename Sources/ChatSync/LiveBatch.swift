import ChatDomain

/// Live messages the state machines accepted from one batch of events and the driver has not
/// committed yet: one ``SyncStore/saveFromServer(_:in:after:before:what:)`` per conversation
/// then writes each touched segment once, however many events brought them.
///
/// Adding is in place (amortised constant time per message): a burst of a thousand events
/// must not copy what the batch already holds once per event.
struct LiveBatch {
    struct Pending {
        /// By sequence: a duplicate event's message is kept once.
        var messages: [Int: Message] = [:]
        /// How many ``ConversationLiveState/Action/save(_:_:)`` actions went in, each owed its
        /// ``ConversationLiveState/Event/saved(_:)`` (or failure) after the commit.
        var saves = 0
        /// The lowest sequence in `messages` (`Int.max` while there is none).
        var lowest = Int.max

        var ascending: [Message] { messages.values.sorted { $0.sequence < $1.sequence } }
    }

    /// Conversations in the order their first save came, and what each has pending.
    private(set) var order: [ConversationID] = []
    private(set) var pending: [ConversationID: Pending] = [:]
    /// Members whose message arrived in a conversation: their typing signal ends (one unlink
    /// each at the commit, not one per event). Kept apart from `pending`, since a message held
    /// past a hole ends its sender's typing too.
    private(set) var typingEnded: [ConversationID: Set<UserID>] = [:]

    var isEmpty: Bool { order.isEmpty && typingEnded.isEmpty }

    /// Notes that `member` sent a message in `id`.
    mutating func endTyping(of member: UserID, in id: ConversationID) {
        typingEnded[id, default: []].insert(member)
    }

    /// `member` is typing in `id` again after a message of this batch: the signal noted now
    /// stays (clearing it at the commit would undo an event that came later).
    mutating func resumeTyping(of member: UserID, in id: ConversationID) {
        typingEnded[id]?.remove(member)
    }

    /// Whether a message of `id` at or below `sequence` waits here: a position that far must
    /// not be stored before the commit.
    func holds(in id: ConversationID, atOrBelow sequence: Int) -> Bool {
        (pending[id]?.lowest ?? Int.max) <= sequence
    }

    /// Takes one save's messages; returns false, taking nothing, when one of them has a sequence
    /// the batch holds another record for (that conflict is the store's check to report, against
    /// what is committed: commit first, then add).
    mutating func add(_ messages: [Message], in id: ConversationID) -> Bool {
        if let held = pending[id]?.messages {
            for message in messages where held[message.sequence].map({ $0 != message }) == true { return false }
        } else {
            order.append(id)
        }
        // Mutated in place through the subscript: no copy of what the batch holds.
        pending[id, default: Pending()].take(messages)
        return true
    }
}

extension LiveBatch.Pending {
    fileprivate mutating func take(_ new: [Message]) {
        for message in new {
            messages[message.sequence] = message
            lowest = min(lowest, message.sequence)
        }
        saves += 1
    }
}
