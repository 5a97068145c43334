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
    var accepted = Set<ClientMessageID>(minimumCapacity: sorted.count + outbox.count)
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
