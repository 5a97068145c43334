import ChatDomain
import ChatStore
import ChatSystem

/// Every open `/v1/live` socket, by user, and the fan-out of events to them.
///
/// Publishing only appends the event to each socket's queue and wakes that socket's thread,
/// so a POST never waits for a slow reader; a socket whose queue overflows is closed (the client
/// catches up after reconnecting, as it must after any drop).
final class LiveHub: Sendable {
    private let sessions = Lock<[UserID: [LiveSession]]>([:])
    /// The `live-hold` fault: each socket's first events wait until this many are queued.
    private let holdUntil: Int?

    init(holdUntil: Int? = nil) {
        self.holdUntil = holdUntil
    }

    func register(_ session: LiveSession) {
        if let holdUntil { session.hold(until: holdUntil) }
        sessions.withLock { $0[session.user, default: []].append(session) }
    }

    func unregister(_ session: LiveSession) {
        sessions.withLock { sessions in
            sessions[session.user]?.removeAll { $0 === session }
            if sessions[session.user]?.isEmpty == true { sessions[session.user] = nil }
        }
    }

    /// Queues `event` (a JSON text) for every socket of every user in `members`.
    func publish(_ event: String, to members: Set<UserID>) {
        publish([event], to: members)
    }

    /// Queues several events, in order, for every socket of every user in `members`.
    func publish(_ events: [String], to members: Set<UserID>) {
        let targets = sessions.withLock { sessions in members.flatMap { sessions[$0] ?? [] } }
        for session in targets {
            session.enqueue(events)
        }
    }

    /// How many sockets are open for `user`: lets tests wait until a client is registered.
    func sessionCount(for user: UserID) -> Int {
        sessions.withLock { $0[user]?.count ?? 0 }
    }
}

/// One open live socket's outgoing queue; its connection thread drains it.
final class LiveSession: Sendable {
    /// The most events waiting for one socket before it counts as too slow and is closed.
    static let maxQueuedEvents = 10_000

    let user: UserID
    /// The order this socket was opened in, for fault decisions.
    let number: UInt64
    /// Readable when events are queued (a pipe the connection thread polls).
    let wakeUp: WakePipe
    /// The queue, and whether the session ended: a publisher that picked this session just
    /// before it ended queues nothing more.
    private let queue = Lock<(events: [String], overflowed: Bool, closed: Bool, holdUntil: Int?)>(
        ([], false, false, nil))

    init(user: UserID, number: UInt64, wakeUp: WakePipe) {
        self.user = user
        self.number = number
        self.wakeUp = wakeUp
    }

    func enqueue(_ events: [String]) {
        queue.withLock { queue in
            guard !queue.closed else { return }
            if queue.events.count + events.count > Self.maxQueuedEvents {
                queue.overflowed = true
            } else {
                queue.events += events
            }
            wakeUp.signal()
        }
    }

    /// Ends the session: later `enqueue`s do nothing (the pipe closes with the last reference).
    func close() {
        queue.withLock { queue in
            queue.closed = true
        }
    }

    /// The first `count` events are handed out together, once all are queued (the `live-hold`
    /// fault); later ones go as they come.
    func hold(until count: Int) {
        queue.withLock { $0.holdUntil = count }
    }

    /// Everything queued, oldest first, and whether the queue overflowed (nothing while a
    /// `live-hold` burst is still gathering).
    func takeAll() -> (events: [String], overflowed: Bool) {
        wakeUp.drain()
        return queue.withLock { queue in
            if let hold = queue.holdUntil {
                guard queue.overflowed || queue.events.count >= hold else { return ([], false) }
                queue.holdUntil = nil // one burst per socket; then events go as they come
            }
            defer { queue.events = [] }
            return (queue.events, queue.overflowed)
        }
    }
}
