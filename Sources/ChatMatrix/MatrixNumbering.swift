import ChatDomain

/// The sequence numbers of a Matrix room's messages, the same on every device of the account.
///
/// Matrix has no per-room counter, so chatdir counts only `m.room.message` events (judged by
/// type alone: a redacted message, one whose content cannot be read and an edit each take a
/// sequence, and a later redaction changes nothing), from an anchor every device agrees on
/// (``MatrixAnchor``, the room's account data): its message is ``anchorSequence``, newer
/// messages count up from it and older ones down. What was numbered is remembered here, by
/// sequence and by event ID, and a page that disagrees with it is refused as a whole
/// (``MatrixNumberingError``), never numbered again another way.
///
/// A value with no I/O: the walks over a homeserver's history feed it pages, and what it holds
/// is what a store will hold.
public struct MatrixNumbering: Sendable, Hashable {
    /// The sequence of a room's anchor message: under ``Message/maxSequence`` with room for
    /// 999,999,999 older messages below it and 8,999,900,000 newer ones above.
    public static let anchorSequence = 1_000_000_000
    /// The sequences a message can have: what a store holds.
    public static let sequences = 1...Message.maxSequence
    /// The RoomEventFilter that asks `/messages` for the counted events only.
    public static let messagesFilter = #"{"types":["m.room.message"]}"#

    /// Every numbered message's event ID, by sequence.
    public private(set) var eventIDs: [Int: MatrixEventID] = [:]
    /// Every numbered message's sequence, by event ID.
    private var numbers: [MatrixEventID: Int] = [:]

    public init() {}

    /// Whether `event` takes a sequence: its type alone decides, never its content, so a
    /// redaction that arrives later cannot change what was counted.
    public static func counts(_ event: MatrixEvent) -> Bool {
        event.type == "m.room.message"
    }

    /// The sequence `eventID` was numbered, if it was.
    public func sequence(of eventID: MatrixEventID) -> Int? {
        numbers[eventID]
    }

    /// Remembers that the message `eventID` is `sequence` (the anchor, or a stored message);
    /// refused when either is numbered otherwise.
    public mutating func record(_ sequence: Int, _ eventID: MatrixEventID) throws(MatrixNumberingError) {
        _ = try number([], from: sequence, eventID, step: 1)
    }

    /// Numbers `events`, in room order oldest first, that follow the message `eventID` numbered
    /// `sequence`: each counted one takes the next sequence up.
    public mutating func number(_ events: [MatrixEvent], after sequence: Int, _ eventID: MatrixEventID)
        throws(MatrixNumberingError) -> [MatrixNumberedEvent]
    {
        try number(events, from: sequence, eventID, step: 1)
    }

    /// Numbers `events`, newest first (the order of `/messages?dir=b`), that precede the message
    /// `eventID` numbered `sequence`: each counted one takes the next sequence down, never below
    /// 1 (``MatrixNumberingError/outOfReach(_:older:)``).
    public mutating func number(_ events: [MatrixEvent], before sequence: Int, _ eventID: MatrixEventID)
        throws(MatrixNumberingError) -> [MatrixNumberedEvent]
    {
        try number(events, from: sequence, eventID, step: -1)
    }

    /// Checks the whole page against what is numbered and against itself before remembering
    /// any of it, so a refused page leaves nothing behind.
    private mutating func number(_ events: [MatrixEvent], from start: Int, _ startID: MatrixEventID, step: Int)
        throws(MatrixNumberingError) -> [MatrixNumberedEvent]
    {
        guard Self.sequences.contains(start) else { throw .outOfReach(startID, older: start < 1) }
        var page: [MatrixEventID: Int] = [:]
        var numbered: [MatrixNumberedEvent] = []
        try check(start, startID, page: &page)
        var sequence = start
        for event in events where Self.counts(event) {
            sequence += step
            guard Self.sequences.contains(sequence) else { throw .outOfReach(event.eventID, older: step < 0) }
            try check(sequence, event.eventID, page: &page)
            numbered.append(MatrixNumberedEvent(sequence: sequence, event: event))
        }
        for (eventID, sequence) in page {
            eventIDs[sequence] = eventID
            numbers[eventID] = sequence
        }
        return numbered
    }

    /// Refuses `eventID` at `sequence` when either is numbered otherwise, here or earlier in the page.
    private func check(_ sequence: Int, _ eventID: MatrixEventID, page: inout [MatrixEventID: Int])
        throws(MatrixNumberingError)
    {
        if let numbered = numbers[eventID] ?? page[eventID], numbered != sequence {
            throw .eventMoved(eventID, numbered: numbered, found: sequence)
        }
        if let numbered = eventIDs[sequence], numbered != eventID {
            throw .sequenceTaken(sequence, numbered: numbered, found: eventID)
        }
        page[eventID] = sequence
    }
}
