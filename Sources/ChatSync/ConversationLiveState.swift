import ChatDomain

/// What the live worker knows and wants for one conversation, as a state machine: it takes an
/// event (a live message arrived, a catch-up finished, a save is done, a delivered post ended, …)
/// and returns the actions to perform, in order; ``SyncEngine``'s live driver performs them and
/// feeds their outcome back in as the next event. No I/O and no clock of its own (`now` comes
/// with each event), so every rule here is tested without a socket (ConversationLiveStateTests).
///
/// One catch-up, whatever asked for it (a reconnect, an idle period, a hole), runs the same way:
/// ``Action/catchUp(_:from:)`` → ``Event/caughtUp(_:through:myDelivered:)`` →
/// ``Action/save(_:_:)`` of the held messages it made contiguous → ``Event/saved(_:)`` → the
/// delivered post, and for a hole its pacing. A failed fetch or save is
/// ``Event/failed(_:reason:retryAfter:)``: an idle or gap catch-up reports it the same way
/// (``Action/report(_:)``); a reconnect's or a live event's failure is its caller's to throw.
public struct ConversationLiveState: Sendable, Equatable {
    /// What brought the messages of a catch-up or save, and so what follows it.
    public enum Cause: Sendable, Equatable {
        /// A live message event.
        case live
        /// The catch-up after (re)connecting.
        case reconnect
        /// The catch-up after ``SyncEngine/Options/idleCatchUp`` without events.
        case idle
        /// The catch-up of a hole whose grace period ran out.
        case gap
        /// The catch-up the server asked for by announcing news without carrying it.
        case announced
    }

    public enum Event: Sendable, Equatable {
        /// Start following from `from` (the store's catch-up point), unless already followed.
        case follow(from: Int)
        /// The socket is up again; `head` is the store's catch-up point.
        case reconnected(head: Int)
        /// No events for the idle period: catch up anyway.
        case idleDue
        /// The server announced news it did not carry: catch up.
        case announced
        /// A live message event.
        case liveMessage(Message)
        /// A receipt event, already merged into the store; `mine` if it is this store's user's.
        case receipt(MemberPosition, mine: Bool)
        /// A catch-up stored everything through `through`; a reconnect's brings my delivered
        /// position from the receipts it fetched.
        case caughtUp(Cause, through: Int, myDelivered: Int?)
        /// The held messages of a ``Action/save(_:_:)`` are stored.
        case saved(Cause)
        /// The fetch or the save of `cause` failed (`reason` says how; `retryAfter` is the
        /// server's, if it asked to wait).
        case failed(Cause, reason: String, retryAfter: Duration?)
        /// A gap check scheduled by ``Action/scheduleGapCheck(at:)`` is due.
        case gapCheckDue
        /// The delivered post ended: the server's deliveredUpTo, or the failure's Retry-After.
        case deliveredFinished(Result<Int, DeliveredFailure>)
        /// The wait of ``Action/scheduleDeliveredRetry(at:)`` is over.
        case deliveredRetryDue
        /// The worker stopped: its background tasks are cancelled, nothing is scheduled or in flight.
        case stopped
    }

    /// A failed delivered post, as far as pacing cares.
    public struct DeliveredFailure: Error, Sendable, Equatable {
        public var retryAfter: Duration?
        public init(retryAfter: Duration?) { self.retryAfter = retryAfter }
    }

    public enum Action: Sendable, Equatable {
        /// Fetch everything after `from` (a reconnect's catch-up also merges the receipts).
        case catchUp(Cause, from: Int)
        /// Store these messages (possibly none), then send ``Event/saved(_:)``.
        case save([Message], Cause)
        /// Send ``Event/gapCheckDue`` at this instant.
        case scheduleGapCheck(at: ContinuousClock.Instant)
        /// Post my delivered position, then send ``Event/deliveredFinished(_:)``.
        case sendDelivered(upTo: Int)
        /// Store the delivered position the server confirmed.
        case storeDelivered(Int)
        /// Send ``Event/deliveredRetryDue`` at this instant.
        case scheduleDeliveredRetry(at: ContinuousClock.Instant)
        /// Tell the person running the worker (a log line, without the conversation's ID).
        case report(String)
    }

    /// Holes in the live events; nil until the conversation is followed (caught up once, or a
    /// live event found it listed).
    public private(set) var gaps: GapTracker?
    /// Live messages received past a hole, waiting for it to fill (by event or catch-up).
    public private(set) var held: [Int: Message] = [:]
    public private(set) var delivered = PositionRequestState()
    /// After a failed delivered post: its backoff, and whether the wait before the next one runs.
    private var deliveredBackoff: Backoff
    public private(set) var deliveredRetryWaiting = false
    /// After a failed gap catch-up: its backoff (the next check waits it out).
    private var gapBackoff: Backoff
    /// Live saves handed out (``Action/save(_:_:)`` of a live message) whose ``Event/saved(_:)``
    /// or ``Event/failed(_:reason:retryAfter:)`` has not come back: the driver may commit several
    /// together. My delivered position is not posted while any is out, because the run it covers
    /// is not durable yet.
    public private(set) var liveSavesPending = 0
    /// Whether a gap check is scheduled; until it runs, holes schedule nothing more.
    public private(set) var gapCheckScheduled = false
    /// When the outbox may be tried again after a temporary failure, and its backoff.
    public private(set) var outboxNotBefore: ContinuousClock.Instant?
    private var outboxBackoff: Backoff
    private let grace: Duration
    private let backoff: Backoff
    /// Whether the server has delivered positions: without them none is ever posted.
    private let postsDelivered: Bool

    /// `grace`: how long a hole may stay open; `backoff`: the policy every retry here starts
    /// from; `postsDelivered`: whether the server has delivered positions to post.
    public init(grace: Duration, backoff: Backoff, postsDelivered: Bool = true) {
        self.grace = grace
        self.backoff = backoff
        self.postsDelivered = postsDelivered
        deliveredBackoff = backoff
        gapBackoff = backoff
        outboxBackoff = backoff
    }

    /// Whether the conversation is followed (its holes tracked).
    public var isFollowed: Bool { gaps != nil }

    /// ``handle(_:at:using:)`` with random numbers of its own (``JitterRandom``).
    public mutating func handle(_ event: Event, at now: ContinuousClock.Instant) -> [Action] {
        var random = JitterRandom()
        return handle(event, at: now, using: &random)
    }

    /// Takes one event and returns what to do, in order. `random` jitters the backoffs.
    public mutating func handle(
        _ event: Event, at now: ContinuousClock.Instant, using random: inout some RandomNumberGenerator
    ) -> [Action] {
        switch event {
        case .follow(let point):
            follow(from: point)
            return []
        case .reconnected(let head):
            return [.catchUp(.reconnect, from: min(head, gaps?.caughtUpTo ?? head))]
        case .idleDue:
            guard let from = gaps?.caughtUpTo else { return [] }
            return [.catchUp(.idle, from: from)]
        case .announced:
            guard let from = gaps?.caughtUpTo else { return [] }
            return [.catchUp(.announced, from: from)]
        case .liveMessage(let message):
            guard gaps != nil else { return [] }
            liveSavesPending += 1
            // Held in memory until everything before it is here: the store never gets a hole at
            // its head, so "the newest stored sequence" is always a safe place to catch up from.
            let before = gaps?.caughtUpTo ?? 0
            held[message.sequence] = message
            // Past the tracker's cap the message is dropped (bounded memory); a catch-up brings it.
            for dropped in gaps?.stored([message.sequence], at: now) ?? [] { held.removeValue(forKey: dropped) }
            return [.save(takeReady(arrived: message.sequence, after: before), .live)]
        case .receipt(let position, let mine):
            // A position past what has arrived proves messages exist that no event brought.
            gaps?.exists(through: max(position.deliveredUpTo, position.readUpTo), at: now)
            let check = gapCheckIfOpen()
            if mine { delivered.observed(confirmed: position.deliveredUpTo) }
            return check
        case .caughtUp(let cause, let through, let myDelivered):
            if cause == .reconnect { follow(from: through) }
            gaps?.caughtUp(through: through, at: now)
            if let myDelivered { delivered.observed(confirmed: myDelivered) }
            return [.save(takeReady(), cause)]
        case .saved(let cause):
            return saved(cause, at: now, using: &random)
        case .failed(let cause, let reason, let retryAfter):
            switch cause {
            case .live:
                liveSavesPending = max(0, liveSavesPending - 1)
                return []
            case .reconnect:
                return []
            case .idle:
                return [.report("idle catch-up failed: \(reason)")]
            case .announced:
                return [.report("catch-up failed: \(reason)")]
            case .gap:
                return [.report("gap catch-up failed: \(reason)")]
                    + retryGapCheck(retryAfter: retryAfter, at: now, using: &random)
            }
        case .gapCheckDue:
            gapCheckScheduled = false
            guard let gaps, gaps.catchUpDue(at: now) else { return gapCheckIfOpen() }
            return [.catchUp(.gap, from: gaps.caughtUpTo)]
        case .deliveredFinished(.success(let confirmed)):
            delivered.finished(confirmed: confirmed)
            deliveredBackoff = backoff
            return [.storeDelivered(confirmed)] + deliveryDue()
        case .deliveredFinished(.failure(let failure)):
            delivered.finished(confirmed: nil)
            let delay = deliveredBackoff.failure(retryAfter: failure.retryAfter, using: &random)
            deliveredRetryWaiting = true
            return [.scheduleDeliveredRetry(at: now + delay)]
        case .deliveredRetryDue:
            deliveredRetryWaiting = false
            return deliveryDue()
        case .stopped:
            gapCheckScheduled = false
            liveSavesPending = 0
            deliveredRetryWaiting = false
            if delivered.inFlight != nil { delivered.finished(confirmed: nil) }
            return []
        }
    }

    private mutating func saved(
        _ cause: Cause, at now: ContinuousClock.Instant, using random: inout some RandomNumberGenerator
    ) -> [Action] {
        switch cause {
        case .live:
            liveSavesPending = max(0, liveSavesPending - 1)
            return gapCheckIfOpen() + deliveryDue()
        case .reconnect:
            // A fresh connection is a fresh start for the outbox: its backoff begins again at the
            // first step (the reconnect itself is paced), instead of keeping the delay a string of
            // failures on the last connection built up.
            outboxNotBefore = nil
            outboxBackoff = backoff
            return deliveryDue()
        case .idle, .announced:
            return deliveryDue()
        case .gap:
            // A catch-up that left the hole open (the server's pages stop short of what its
            // events or receipts promised) is paced like a failure.
            let delivery = deliveryDue()
            guard gaps?.missing != nil else {
                gapBackoff = backoff
                return delivery
            }
            return delivery + retryGapCheck(retryAfter: nil, at: now, using: &random)
        }
    }

    private mutating func follow(from point: Int) {
        if gaps == nil { gaps = GapTracker(caughtUpTo: point, grace: grace) }
    }

    /// A gap check at the hole's deadline, if a hole is open and none is scheduled.
    private mutating func gapCheckIfOpen() -> [Action] {
        guard gaps?.missing != nil, !gapCheckScheduled, let deadline = gaps?.deadline else { return [] }
        gapCheckScheduled = true
        return [.scheduleGapCheck(at: deadline)]
    }

    /// A gap check after the gap backoff; until then live events past the hole schedule nothing,
    /// so a failing server is not asked once per event.
    private mutating func retryGapCheck(
        retryAfter: Duration?, at now: ContinuousClock.Instant, using random: inout some RandomNumberGenerator
    ) -> [Action] {
        guard !gapCheckScheduled else { return [] }
        gapCheckScheduled = true
        return [.scheduleGapCheck(at: now + gapBackoff.failure(retryAfter: retryAfter, using: &random))]
    }

    /// Posts my delivered position when the stored run grew: one request at a time, latest wins;
    /// after a failure the next post waits out the backoff (Retry-After honoured).
    private mutating func deliveryDue() -> [Action] {
        guard postsDelivered, let high = gaps?.caughtUpTo else { return [] }
        delivered.want(high)
        guard liveSavesPending == 0, !deliveredRetryWaiting, let upTo = delivered.nextRequest() else { return [] }
        return [.sendDelivered(upTo: upTo)]
    }

    /// Removes and returns the held messages that nothing is missing before, in order.
    private mutating func takeReady() -> [Message] {
        guard let through = gaps?.caughtUpTo else { return [] }
        let ready = held.values.filter { $0.sequence <= through }.sorted { $0.sequence < $1.sequence }
        for message in ready { held.removeValue(forKey: message.sequence) }
        return ready
    }

    /// ``takeReady()`` for one arrival: only the sequences it made contiguous are looked up, so a
    /// live event costs the run it closed, not the size of the held buffer (which a server that
    /// never fills its hole could otherwise make every event scan).
    private mutating func takeReady(arrived sequence: Int, after before: Int) -> [Message] {
        guard let through = gaps?.caughtUpTo else { return [] }
        guard let run = sequence <= before ? sequence...sequence : through > before ? (before + 1)...through : nil
        else { return [] }
        var ready: [Message] = []
        for sequence in run {
            if let message = held.removeValue(forKey: sequence) { ready.append(message) }
        }
        return ready
    }

    // MARK: - Outbox pacing

    /// Whether the outbox may be tried now (no temporary failure's wait still running).
    public func outboxDue(at now: ContinuousClock.Instant) -> Bool {
        outboxNotBefore.map { $0 <= now } ?? true
    }

    /// The outbox met a temporary failure: returns how long it waits before the next try.
    public mutating func outboxFailed(retryAfter: Duration?, at now: ContinuousClock.Instant) -> Duration {
        let delay = outboxBackoff.failure(retryAfter: retryAfter)
        outboxNotBefore = now + delay
        return delay
    }

    /// The outbox was delivered without a temporary failure: the backoff starts again.
    public mutating func outboxDelivered() {
        outboxBackoff = backoff
    }
}
