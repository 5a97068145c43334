import ChatMatrix

/// What the live `/sync` has shown of one room beyond the last forward walk, and whether those
/// events can be numbered without asking `/messages` for them.
///
/// A room's messages are numbered in `/messages` order: by depth in the event graph, then by
/// arrival. `/sync` gives events in arrival order, which differs from that only where the
/// graph forks. So the live worker still asks `/messages` after a wake, except when `/sync`
/// (in the federation format, which carries each event's depth and `prev_events`) shows that
/// the new events form a single line: the first was sent after the last event a forward walk
/// reached and after nothing else, one level deeper, and each next one likewise after the one
/// before. No other event can then sit between them in `/messages` order: one that had reached
/// the homeserver earlier would have been in the walk or in this `/sync`, and one arriving
/// later is a late event, numbered where it is met as the walk would number it.
///
/// A value with no I/O; ``MatrixRoomBook`` keeps one a room while a live `/sync` runs.
enum MatrixLiveTail: Sendable, Equatable {
    /// An event and its depth, as the federation format gives them.
    struct Link: Sendable, Equatable {
        var eventID: MatrixEventID
        var depth: Int
    }

    /// A numbered message: where a forward walk's numbering stands.
    struct Mark: Sendable, Equatable {
        var sequence: Int
        var eventID: MatrixEventID
    }

    /// The newest event `/sync` showed (nil: none, or not in the federation format); no forward
    /// walk is known to have ended at it, so the next catch-up asks `/messages`.
    case apart(newest: Link?)
    /// A forward walk ended at `tip`, the newest event `/sync` had shown, its last message
    /// numbered at `mark`; `pending` are the events `/sync` brought since, in one line from
    /// `tip` (which is now the last of them).
    case following(tip: Link, mark: Mark, pending: [MatrixEvent])

    static let start = MatrixLiveTail.apart(newest: nil)

    /// The most events held pending: one page of `/messages`.
    static let mostPending = MatrixLimits.eventsPerPage

    /// The newest event `/sync` showed.
    var newest: Link? {
        switch self {
        case .apart(let newest): newest
        case .following(let tip, _, _): tip
        }
    }

    /// Takes in one `/sync` answer's timeline of the room. Events already numbered (`known`)
    /// are passed over: a walk after the wake may have reached them first.
    mutating func receive(_ timeline: MatrixTimeline, known: (MatrixEventID) -> Bool) {
        guard let last = timeline.events.last else { return }
        let newest = last.depth.map { Link(eventID: last.eventID, depth: $0) }
        guard case .following(var tip, let mark, var pending) = self, !timeline.limited else {
            self = .apart(newest: newest)
            return
        }
        for event in timeline.events {
            if event.eventID == tip.eventID || known(event.eventID)
                || pending.contains(where: { $0.eventID == event.eventID })
            {
                continue
            }
            guard event.previousEvents == [tip.eventID], let depth = event.depth, depth == tip.depth + 1 else {
                self = .apart(newest: newest)
                return
            }
            pending.append(event)
            tip = Link(eventID: event.eventID, depth: depth)
        }
        // A room the engine does not catch up (it stopped on it) must not grow the tail for
        // good: past one page, `/messages` brings them.
        guard pending.count <= Self.mostPending else {
            self = .apart(newest: newest)
            return
        }
        self = .following(tip: tip, mark: mark, pending: pending)
    }

    /// A forward walk reached the room's end at event `last` (nil: not known), its last message
    /// numbered at `mark`: the tail follows on from there when `last` is the newest event
    /// `/sync` showed, and nothing is pending (the walk brought all of it).
    mutating func walked(to last: MatrixEventID?, mark: Mark) {
        guard let newest, newest.eventID == last else {
            self = .apart(newest: newest)
            return
        }
        self = .following(tip: newest, mark: mark, pending: [])
    }

    /// A forward walk stopped short of the room's end: what `/sync` showed may lie past it.
    mutating func walkedPart() {
        self = .apart(newest: newest)
    }

    /// The pending events, numbered after `mark`, when they follow the message numbered there
    /// and hold at most `limit` messages; none are pending afterwards. Nil when `/messages`
    /// must be asked instead. A numbering that refuses them (the history differs from what was
    /// numbered) leaves the tail apart, and the error is the caller's to report.
    mutating func take(after mark: Mark, limit: Int, numbering: inout MatrixNumbering)
        throws(MatrixNumberingError) -> (numbered: [MatrixNumberedEvent], events: [MatrixEvent])?
    {
        guard case .following(let tip, let current, let pending) = self, current == mark, !pending.isEmpty,
            pending.count(where: MatrixNumbering.counts) <= limit
        else { return nil }
        let numbered: [MatrixNumberedEvent]
        do {
            numbered = try numbering.number(pending, after: mark.sequence, mark.eventID)
        } catch {
            self = .apart(newest: tip)
            throw error
        }
        let next = numbered.last.map { Mark(sequence: $0.sequence, eventID: $0.event.eventID) } ?? mark
        self = .following(tip: tip, mark: next, pending: [])
        return (numbered, pending)
    }
}
