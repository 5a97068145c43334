/// One row of a conversation as every screen shows it: an accepted message or an outbox entry.
public struct TimelineRow: Hashable, Sendable {
    /// Where the row's status comes from.
    public enum Status: Hashable, Sendable {
        /// Someone else's message: no tick.
        case incoming
        /// My message, accepted by the server, with its receipt state.
        case outgoing(ReceiptState)
        /// My message, still in the outbox.
        case pending
        /// My message, refused by the server, with the reason.
        case failed(reason: String?)
    }

    public var clientMessageID: ClientMessageID
    /// Nil while the message is in the outbox.
    public var sequence: Int?
    public var senderID: UserID
    public var text: String
    /// The server's `sentAt`, or the outbox's `createdAt` for a message not accepted yet.
    public var time: String
    public var status: Status

    public init(clientMessageID: ClientMessageID, sequence: Int?, senderID: UserID, text: String, time: String, status: Status) {
        self.clientMessageID = clientMessageID
        self.sequence = sequence
        self.senderID = senderID
        self.text = text
        self.time = time
        self.status = status
    }
}

/// The composite: where stored messages, the outbox and positions meet to make the rows.
///
/// Order is the server's sequence; outbox entries follow every sequenced message, oldest queue
/// position first. An outbox entry whose client ID is already among `messages` is hidden: it was
/// accepted and the worker has not removed its file yet, and a message is shown once.
public func timeline(
    messages: [Message], outbox: [OutboxEntry], positions: Positions?, members: [UserID], me: UserID
) -> [TimelineRow] {
    let sorted = messages.sorted { $0.sequence < $1.sequence }
    var rows: [TimelineRow] = []
    rows.reserveCapacity(sorted.count + outbox.count)
    var accepted = Set<ClientMessageID>()
    for message in sorted where accepted.insert(message.clientMessageID).inserted {
        let status: TimelineRow.Status = message.senderID == me
            ? .outgoing(receiptState(sequence: message.sequence, sender: me, members: members, positions: positions))
            : .incoming
        rows.append(TimelineRow(clientMessageID: message.clientMessageID, sequence: message.sequence, senderID: message.senderID,
                                text: message.text, time: message.sentAt, status: status))
    }
    let queue = outbox.sorted { ($0.ordinal, $0.clientMessageID) < ($1.ordinal, $1.clientMessageID) }
    for entry in queue where accepted.insert(entry.clientMessageID).inserted {
        let status: TimelineRow.Status = entry.state == .failed ? .failed(reason: entry.error) : .pending
        rows.append(TimelineRow(clientMessageID: entry.clientMessageID, sequence: nil, senderID: me,
                                text: entry.text, time: entry.createdAt, status: status))
    }
    return rows
}

/// The highest sequence `s` such that every sequence from `floor + 1` through `s` is in `sequences`;
/// `floor` when `floor + 1` is missing. Used for "delivered up to" and gap detection.
public func contiguousHigh(from floor: Int, in sequences: some Sequence<Int>) -> Int {
    let present = Set(sequences)
    var high = floor
    while present.contains(high + 1) { high += 1 }
    return high
}
