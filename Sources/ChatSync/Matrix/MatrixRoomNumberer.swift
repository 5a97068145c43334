import ChatMatrix

/// One room's messages numbered the way every device of the account numbers them
/// (``MatrixNumbering``), read from a homeserver through a ``MatrixClient``: the room's anchor
/// (established once, then read by every device), the walk forward to the newest message and
/// the walk back into older history.
public struct MatrixRoomNumberer: Sendable {
    public let client: MatrixClient
    /// The account whose room account data holds the anchor.
    public let user: MatrixUserID
    public let room: MatrixRoomID
    /// Events asked for in one `/messages` page: Synapse gives at most 1,000.
    public var pageSize: Int

    public init(client: MatrixClient, user: MatrixUserID, room: MatrixRoomID, pageSize: Int = 100) {
        self.client = client
        self.user = user
        self.room = room
        self.pageSize = min(max(pageSize, 1), MatrixLimits.eventsPerPage)
    }

    /// Why a walk stopped: the homeserver failed (``SyncError``, what to do decided as for any
    /// request), or its history is not the one numbered (``MatrixNumberingError``: nothing of
    /// that page was numbered).
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case server(SyncError)
        case numbering(MatrixNumberingError)

        public var description: String {
            switch self {
            case .server(let error): error.description
            case .numbering(let error): error.description
            }
        }
    }

    /// What a forward walk numbered, and where the next one starts.
    public struct ForwardWalk: Sendable, Hashable {
        /// Oldest first.
        public var events: [MatrixNumberedEvent]
        /// The `/messages` token after the newest event seen: a later walk can page on from it.
        public var token: String
    }

    /// What a backward walk numbered.
    public struct BackwardWalk: Sendable, Hashable {
        /// Newest first.
        public var events: [MatrixNumberedEvent]
        /// Whether the room's first message was reached: there is nothing older to number.
        public var reachedBeginning: Bool
    }

    // MARK: - The anchor

    /// The room's anchor: the one in the account data, else one this device writes at the
    /// room's newest message and reads back; nil while the room has no message.
    public func establishAnchor() async throws(SyncError) -> MatrixAnchor? {
        if let anchor = try await readAnchor() { return anchor }
        guard let proposal = try await proposeAnchor() else { return nil }
        return try await writeAnchor(proposal)
    }

    /// The anchor another device (or this one) wrote, if any.
    public func readAnchor() async throws(SyncError) -> MatrixAnchor? {
        try await client.anchor(user: user, room: room)
    }

    /// An anchor at the room's newest message, ``MatrixNumbering/anchorSequence``: the newest
    /// messages are numbered at once, older ones as they are asked for. Nil while the room has no message.
    public func proposeAnchor() async throws(SyncError) -> MatrixAnchor? {
        let page = try await client.messages(
            room, from: nil, direction: .backward, limit: 1, filter: MatrixNumbering.messagesFilter)
        guard let newest = page.chunk.first(where: MatrixNumbering.counts) else { return nil }
        return MatrixAnchor(eventID: newest.eventID, sequence: MatrixNumbering.anchorSequence)
    }

    /// Writes `anchor` and returns what the server then holds: another device may have written
    /// its own meanwhile, and the last write is the one every device reads from then on.
    public func writeAnchor(_ anchor: MatrixAnchor) async throws(SyncError) -> MatrixAnchor {
        try await client.setAnchor(anchor, user: user, room: room)
        guard let stored = try await readAnchor() else {
            throw .contract("\(MatrixAnchor.type) of \(room) was written but is not there when read back")
        }
        return stored
    }

    // MARK: - Walks

    /// Numbers every message after the message `eventID` (numbered `sequence`) up to the
    /// newest: the token after it from `/context`, then `/messages?dir=f` asking for messages only.
    public func walkForward(from sequence: Int, _ eventID: MatrixEventID, numbering: inout MatrixNumbering)
        async throws(Failure) -> ForwardWalk
    {
        let context = try await context(of: eventID)
        guard var token = context.end else {
            throw .server(
                .contract(
                    "\(MatrixEndpoint.context(room, eventID, limit: Self.contextLimit)): no token to page forward"))
        }
        var numbered = try number(&numbering) { numbering throws(MatrixNumberingError) in
            try numbering.number(context.eventsAfter, after: sequence, eventID)
        }
        while true {
            let (last, lastID) = numbered.last.map { ($0.sequence, $0.event.eventID) } ?? (sequence, eventID)
            let page = try await messages(from: token, .forward, limit: pageSize)
            let events = try number(&numbering) { numbering throws(MatrixNumberingError) in
                try numbering.number(page.chunk, after: last, lastID)
            }
            numbered += events
            if let end = page.end { token = end }
            if page.end == nil || page.chunk.isEmpty { return ForwardWalk(events: numbered, token: token) }
        }
    }

    /// Numbers up to `count` messages before the message `eventID` (numbered `sequence`),
    /// newest first: the token before it from `/context`, then `/messages?dir=b` asking for
    /// messages only, pages no larger than the sequences left above 1, so the walk numbers down
    /// to sequence 1 and refuses (``MatrixNumberingError/outOfReach(_:older:)``) only a message
    /// older than that.
    public func walkBackward(from sequence: Int, _ eventID: MatrixEventID, count: Int, numbering: inout MatrixNumbering)
        async throws(Failure) -> BackwardWalk
    {
        let context = try await context(of: eventID)
        let before = Array(context.eventsBefore.filter(MatrixNumbering.counts).prefix(count))
        var numbered = try number(&numbering) { numbering throws(MatrixNumberingError) in
            try numbering.number(before, before: sequence, eventID)
        }
        guard var token = context.start else { return BackwardWalk(events: numbered, reachedBeginning: true) }
        while numbered.count < count {
            let (last, lastID) = numbered.last.map { ($0.sequence, $0.event.eventID) } ?? (sequence, eventID)
            let limit = min(pageSize, count - numbered.count, max(last - 1, 1))
            let page = try await messages(from: token, .backward, limit: limit)
            let events = try number(&numbering) { numbering throws(MatrixNumberingError) in
                try numbering.number(page.chunk, before: last, lastID)
            }
            numbered += events
            guard let end = page.end, !page.chunk.isEmpty else {
                return BackwardWalk(events: numbered, reachedBeginning: true)
            }
            token = end
        }
        return BackwardWalk(events: numbered, reachedBeginning: false)
    }

    /// Events `/context` gives around the one asked for: Synapse splits it, one before and one
    /// after. The walks number those too, since the tokens it answers lie beyond them.
    private static let contextLimit = 2

    /// `eventID` with the events next to it and the tokens around them; refused unless it is
    /// the message asked for.
    private func context(of eventID: MatrixEventID) async throws(Failure) -> MatrixEventContext {
        let context: MatrixEventContext
        do {
            context = try await client.context(room, eventID, limit: Self.contextLimit)
        } catch {
            throw .server(error)
        }
        guard context.event.eventID == eventID, MatrixNumbering.counts(context.event) else {
            throw .server(
                .contract(
                    "\(MatrixEndpoint.context(room, eventID, limit: Self.contextLimit)): answered \(context.event.type) \(context.event.eventID) for message \(eventID)"
                ))
        }
        return context
    }

    private func messages(from token: String, _ direction: MatrixEndpoint.Direction, limit: Int)
        async throws(Failure) -> MatrixMessagesPage
    {
        do {
            return try await client.messages(
                room, from: token, direction: direction, limit: limit, filter: MatrixNumbering.messagesFilter)
        } catch {
            throw .server(error)
        }
    }

    private func number(
        _ numbering: inout MatrixNumbering,
        _ body: (inout MatrixNumbering) throws(MatrixNumberingError) -> [MatrixNumberedEvent]
    ) throws(Failure) -> [MatrixNumberedEvent] {
        do {
            return try body(&numbering)
        } catch {
            throw .numbering(error)
        }
    }
}
