import ChatDomain
import ChatStore

/// What the client checks in a page of messages (catch-up, history, a live event) before any of
/// it is written: the page must be consistent with itself and with what the store holds. A
/// server can then never make a conversation unreadable (one client ID at two sequences, two
/// records at one sequence) nor overwrite what was stored: the page is refused as a whole.
enum ServerHistoryCheck {
    /// Within one page: sequences strictly ascending (so none twice), each client message ID
    /// once, and every sequence inside `bounds` (after the `after` asked for, before `before`).
    static func page(_ items: [Message], after: Int? = nil, before: Int? = nil, what: String) throws(SyncError) {
        var ids: [ClientMessageID: Int] = [:]
        var previous: Int?
        for message in items {
            if let after, message.sequence <= after {
                throw .contract("\(what): sequence \(message.sequence) was sent for a page of messages after \(after)")
            }
            if let before, message.sequence >= before {
                throw .contract(
                    "\(what): sequence \(message.sequence) was sent for a page of messages before \(before)")
            }
            if let previous, message.sequence <= previous {
                throw .contract(
                    message.sequence == previous
                        ? "\(what): sequence \(message.sequence) appears twice"
                        : "\(what): sequence \(message.sequence) comes after \(previous); a page must be in ascending order"
                )
            }
            if let other = ids.updateValue(message.sequence, forKey: message.clientMessageID) {
                throw .contract(
                    "\(what): client message ID \(message.clientMessageID) appears at sequences \(other) and \(message.sequence)"
                )
            }
            previous = message.sequence
        }
    }

    /// Against the store: a sequence that holds another record, or a client ID stored at another
    /// sequence, means the server's history is not the one this store was built from.
    /// `stored` are the records of the segments the page touches (and their neighbours).
    static func against(_ stored: [Message], _ items: [Message]) throws(SyncError) {
        let bySequence = Dictionary(stored.map { ($0.sequence, $0) }, uniquingKeysWith: { first, _ in first })
        let byID = Dictionary(stored.map { ($0.clientMessageID, $0.sequence) }, uniquingKeysWith: { first, _ in first })
        for message in items {
            if let record = bySequence[message.sequence] {
                // A Matrix redaction learnt after the message was stored: its one redacted record.
                if message.redacted, message == record.redactedRecord { continue }
                if record.clientMessageID != message.clientMessageID {
                    throw .historyDiffers(
                        at: message.sequence,
                        "the server has message \(message.clientMessageID) there, the store has \(record.clientMessageID)"
                    )
                }
                if record.text != message.text || record.senderID != message.senderID {
                    throw .historyDiffers(
                        at: message.sequence,
                        "the server's message \(message.clientMessageID) there has another sender or text than the stored one"
                    )
                }
            } else if let sequence = byID[message.clientMessageID] {
                throw .historyDiffers(
                    at: message.sequence,
                    "the server has message \(message.clientMessageID) there, the store has it at sequence \(sequence)")
            }
        }
    }
}

extension ServerHistoryCheck {
    /// Against my outbox: a record that carries the client message ID of a message I queued
    /// must be that message, sent by me with the text I queued. A server that answers a POST
    /// with another sender, or stores other words under my ID (and hands them out in a page, a
    /// live event or a history page), would otherwise put them in my mouth and take my own
    /// message out of the outbox as delivered. `queued` are the outbox entries whose IDs the
    /// page carries.
    static func againstOutbox(_ queued: [OutboxEntry], _ items: [Message], me: UserID) throws(SyncError) {
        guard !queued.isEmpty else { return }
        let byID = Dictionary(queued.map { ($0.clientMessageID, $0) }, uniquingKeysWith: { first, _ in first })
        for message in items {
            guard let entry = byID[message.clientMessageID] else { continue }
            if message.senderID != me {
                throw .historyDiffers(
                    at: message.sequence,
                    "the server has my queued message \(message.clientMessageID) there as sent by \(message.senderID)")
            }
            if message.text != entry.text {
                throw .historyDiffers(
                    at: message.sequence,
                    "the server has my queued message \(message.clientMessageID) there with other text than the outbox's"
                )
            }
        }
    }
}

extension SyncError {
    /// What to do is the same whichever way the histories differ: the store is kept as it is.
    static func historyDiffers(at sequence: Int, _ detail: String) -> SyncError {
        .contract(
            "the server's history differs from the store's at sequence \(sequence): \(detail) (was the server restored from an older copy of its data?); this conversation's outbox keeps its messages; ask the server's operator to restore its data, or move this store aside and sync a new one"
        )
    }
}
