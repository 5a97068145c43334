/// The composite: where stored messages, the outbox and positions meet to make the rows.
///
/// Order is the server's sequence; outbox entries follow every sequenced message, oldest queue
/// position first. Edits are applied to the messages they edit and make no row
/// (``applyingEdits(_:)``), so only the edits among `messages` count. An outbox entry whose client ID is already among `messages` is hidden: it was
/// accepted and the worker has not removed its file yet, and a message is shown once.
public func timeline(
    messages: [Message], outbox: [OutboxEntry], positions: Positions?, members: [UserID], me: UserID
) -> [TimelineRow] {
    let sorted = applyingEdits(messages.sorted { $0.sequence < $1.sequence })
    let queue = outbox.sorted { ($0.ordinal, $0.clientMessageID) < ($1.ordinal, $1.clientMessageID) }
    // The first of each client ID in this order is shown: the sequenced messages, then the queue.
    let repeated = repeatedClientIDs(count: sorted.count + queue.count) { index in
        index < sorted.count ? sorted[index].message.clientMessageID : queue[index - sorted.count].clientMessageID
    }
    var rows: [TimelineRow] = []
    rows.reserveCapacity(sorted.count + queue.count)
    for (index, shown) in sorted.enumerated() where !repeated[index] {
        let message = shown.message
        let status: TimelineRow.Status =
            message.senderID == me
            ? .outgoing(receiptState(sequence: message.sequence, sender: me, members: members, positions: positions))
            : .incoming
        rows.append(
            TimelineRow(
                clientMessageID: message.clientMessageID, sequence: message.sequence, senderID: message.senderID,
                text: message.text, time: message.sentAt, status: status, kind: message.kind, edited: shown.edited,
                redacted: message.redacted))
    }
    for (offset, entry) in queue.enumerated() where !repeated[sorted.count + offset] {
        let status: TimelineRow.Status = entry.state == .failed ? .failed(reason: entry.error) : .pending
        rows.append(
            TimelineRow(
                clientMessageID: entry.clientMessageID, sequence: nil, senderID: me,
                text: entry.text, time: entry.createdAt, status: status))
    }
    return rows
}

/// For each of `count` client IDs (`id(index)`), whether an earlier index has the same one.
///
/// Found by sorting, not with a `Set`: a page's worth of SipHash inserts, the hash seeded anew
/// for each table, was a twentieth of opening a conversation. The positions are sorted by the
/// ID's FNV-1a hash; a run of equal hashes (a repeat, or a collision someone made on purpose) is
/// sorted again by the IDs themselves, so the work stays n log n whatever the IDs are.
public func repeatedClientIDs(count: Int, _ id: (Int) -> ClientMessageID) -> [Bool] {
    repeatedClientIDs(count: count, hash: { $0.fnv1a }, id)
}

/// ``repeatedClientIDs(count:_:)`` with the hash given (tests make every hash collide).
func repeatedClientIDs(count: Int, hash: (ClientMessageID) -> UInt64, _ id: (Int) -> ClientMessageID) -> [Bool] {
    var repeated = [Bool](repeating: false, count: count)
    guard count > 1 else { return repeated }
    var order: [(hash: UInt64, index: Int)] = []
    order.reserveCapacity(count)
    for index in 0..<count { order.append((hash(id(index)), index)) }
    order.sort { $0.hash < $1.hash }
    var start = 0
    while start < count {
        var end = start + 1
        while end < count && order[end].hash == order[start].hash { end += 1 }
        if end - start > 1 {
            // Equal IDs become neighbours, the earliest index first among them.
            let run = order[start..<end].map { (id: id($0.index), index: $0.index) }.sorted {
                ($0.id, $0.index) < ($1.id, $1.index)
            }
            for (earlier, later) in zip(run, run.dropFirst()) where earlier.id == later.id {
                repeated[later.index] = true
            }
        }
        start = end
    }
    return repeated
}
