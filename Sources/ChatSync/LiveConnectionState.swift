/// The live worker's connection from one dial to the next, as one value: which state it is in
/// (each with exactly the data valid there) and, for each event, what the worker does next.
///
/// No I/O and no clock of its own (the instant comes in), so its rules are a table in
/// `LiveConnectionStateTests`. An event that cannot happen in the state the connection is in
/// (connected while waiting to dial, say) is a programming error and stops the process.
struct LiveConnectionState: Sendable {
    enum State: Sendable, Equatable {
        /// No connection yet: the worker has not dialled.
        case idle
        /// A connection is being opened.
        case dialing
        /// The connection is up: events flow.
        case connected
        /// The connection ended; `error` says why, when it said.
        case ended(SyncError?)
        /// The token the last connection carried was refused and the worker has a new one:
        /// the next dial is at once, the refusal was the old token's, not the server's state.
        case renewed
        /// Waiting before the next dial.
        case waiting
    }

    /// What the worker does once a connection's stream has ended.
    enum Next: Sendable, Equatable {
        /// Dial again at once.
        case dial
        /// Wait `delay`: the first `floor` of it whole (what the server asked for, or a refused
        /// certificate's wait), the rest ended early by another request's answer if `wakeable`.
        case wait(delay: Duration, floor: Duration, wakeable: Bool)
    }

    private(set) var state = State.idle
    private var pacer: ReconnectPacer
    /// The shortest wait after the server's TLS was refused (``SyncError/untrusted(_:)``).
    private let untrustedWait: Duration
    /// Whether another request's answer may still end a reconnect wait: once per run of failed
    /// connections, so a server whose live endpoint alone fails is not redialled at the pace of
    /// the outbox's or typing's requests.
    private var wakeable = true

    init(pacer: ReconnectPacer = ReconnectPacer(backoff: Backoff()), untrustedWait: Duration = .seconds(60)) {
        self.pacer = pacer
        self.untrustedWait = untrustedWait
    }

    /// Whether a connection is up.
    var isConnected: Bool {
        if case .connected = state { return true }
        return false
    }

    /// The worker dials.
    mutating func dial() {
        switch state {
        case .idle, .renewed, .waiting: state = .dialing
        case .dialing, .connected, .ended: preconditionFailure("dialled while \(state)")
        }
    }

    /// The connection came up.
    mutating func connected(at now: ContinuousClock.Instant) {
        guard case .dialing = state else { preconditionFailure("connected while \(state)") }
        state = .connected
        pacer.connected(at: now)
        wakeable = true
    }

    /// The connection ended with `error`.
    mutating func disconnected(_ error: SyncError) {
        switch state {
        case .dialing, .connected: state = .ended(error)
        case .idle, .ended, .renewed, .waiting: preconditionFailure("disconnected while \(state)")
        }
    }

    /// The token this connection carried was refused and a new one is in place.
    mutating func tokenRenewed() {
        switch state {
        case .connected, .ended: state = .renewed
        case .idle, .dialing, .renewed, .waiting: preconditionFailure("renewed a token while \(state)")
        }
    }

    /// The connection's stream ended: dial again at once after a renewed token, otherwise wait
    /// the reconnect backoff (a connection accepted then closed soon after counts as a failure,
    /// so the delay keeps growing; one that stayed up long enough starts it again).
    mutating func streamEnded(at now: ContinuousClock.Instant) -> Next {
        var random = JitterRandom()
        return streamEnded(at: now, using: &random)
    }

    /// ``streamEnded(at:)`` with `random` jittering the backoff.
    mutating func streamEnded(at now: ContinuousClock.Instant, using random: inout some RandomNumberGenerator)
        -> Next
    {
        let error: SyncError?
        switch state {
        case .renewed:
            return .dial
        case .ended(let ended): error = ended
        // A stream that ended without saying why (the worker stopped reading it).
        case .dialing, .connected: error = nil
        case .idle, .waiting: preconditionFailure("a stream ended while \(state)")
        }
        var wait = error?.retryAfter
        if case .untrusted? = error { wait = untrustedWait }
        let delay = pacer.disconnected(at: now, retryAfter: wait, using: &random)
        state = .waiting
        return .wait(delay: delay, floor: min(wait ?? .zero, delay), wakeable: wakeable)
    }

    /// Another request's answer ended the wait: the next wait of this run of failures is whole.
    mutating func wokenEarly() {
        guard case .waiting = state else { preconditionFailure("woken while \(state)") }
        wakeable = false
    }
}
