/// Tells whether a conversation's live events have a hole that only a catch-up can fill.
///
/// Sequences have no holes on the server: 418 then 421 means 419 and 420 exist and were missed.
/// ``caughtUpTo`` is the sequence through which everything has arrived. An event past a hole is
/// held (the worker keeps it in memory, the store never gets a hole at its head) and the hole
/// gets a short grace period, since the missing events may only be late or reordered; when it is
/// still open after that, ``catchUpDue(at:)`` says so and the worker asks `?after=caughtUpTo`.
public struct GapTracker: Sendable, Equatable {
    /// Everything through this sequence has arrived (from where sync started following).
    public private(set) var caughtUpTo: Int
    /// Sequences that arrived above `caughtUpTo + 1`: past a hole.
    public private(set) var beyondHole: Set<Int> = []
    /// When the oldest open hole was first seen.
    public private(set) var holeSince: ContinuousClock.Instant?
    /// How long a hole may stay open before a catch-up (under a second, per the sync rules).
    public var grace: Duration
    /// The most sequences held past a hole. Past it a new one is dropped (the worker forgets its
    /// message), remembered only as existing, and a catch-up is due at once: whatever a server
    /// sends, memory stays bounded and a catch-up fetches what was dropped.
    public var heldLimit: Int
    public static let defaultHeldLimit = 10_000
    /// Whether a sequence was dropped at ``heldLimit`` since the last catch-up.
    public private(set) var overflowed = false

    public init(caughtUpTo: Int, grace: Duration = .milliseconds(500), heldLimit: Int = Self.defaultHeldLimit) {
        self.caughtUpTo = caughtUpTo
        self.grace = grace
        self.heldLimit = heldLimit
    }

    /// The highest sequence known to exist without having arrived: a receipt said a member has
    /// read or received that far (positions never pass the server's last sequence).
    public private(set) var knownToExist = 0

    /// Records sequences that arrived (live events or a catch-up page). Returns those dropped
    /// at ``heldLimit``: the caller must not keep them (a catch-up brings them again).
    @discardableResult
    public mutating func stored(_ sequences: some Sequence<Int>, at now: ContinuousClock.Instant) -> [Int] {
        var dropped: [Int] = []
        for sequence in sequences where sequence > caughtUpTo {
            if sequence > caughtUpTo + 1, beyondHole.count >= heldLimit, !beyondHole.contains(sequence) {
                dropped.append(sequence)
                knownToExist = max(knownToExist, sequence)
                overflowed = true
                continue
            }
            beyondHole.insert(sequence)
        }
        while beyondHole.remove(caughtUpTo + 1) != nil {
            caughtUpTo += 1
        }
        updateHole(at: now)
        return dropped
    }

    /// Records that sequences through `sequence` exist (from a receipt event): if they have not
    /// all arrived, that is a hole at the tail that no later event may reveal.
    public mutating func exists(through sequence: Int, at now: ContinuousClock.Instant) {
        knownToExist = max(knownToExist, sequence)
        updateHole(at: now)
    }

    /// Records that a catch-up stored everything through `sequence` (the server said no more).
    public mutating func caughtUp(through sequence: Int, at now: ContinuousClock.Instant) {
        if sequence > caughtUpTo { caughtUpTo = sequence }
        knownToExist = max(knownToExist, sequence)
        beyondHole = beyondHole.filter { $0 > caughtUpTo }
        overflowed = false
        stored([], at: now)
    }

    private mutating func updateHole(at now: ContinuousClock.Instant) {
        if missing == nil {
            holeSince = nil
        } else if holeSince == nil {
            holeSince = now
        }
    }

    /// The sequences known to be missing, if any: below the lowest one held past a hole, or up
    /// to one a receipt proved exists.
    public var missing: ClosedRange<Int>? {
        if let low = beyondHole.min() { return (caughtUpTo + 1)...(low - 1) }
        if knownToExist > caughtUpTo { return (caughtUpTo + 1)...knownToExist }
        return nil
    }

    /// Whether a hole has been open longer than ``grace``.
    public func catchUpDue(at now: ContinuousClock.Instant) -> Bool {
        guard let holeSince else { return false }
        return overflowed || now - holeSince >= grace
    }

    /// When a catch-up will be due, if a hole is open (at once after an overflow).
    public var deadline: ContinuousClock.Instant? {
        holeSince.map { overflowed ? $0 : $0 + grace }
    }
}
