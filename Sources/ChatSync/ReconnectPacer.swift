/// When the live worker dials again after its connection ended.
///
/// A connection that dies soon after it was accepted counts as a failure like a refused one:
/// the delay keeps growing (``Backoff``: jittered, capped, never sooner than `Retry-After`), so
/// a server that accepts every upgrade and drops it at once is not redialled, with a full
/// catch-up, several times a second for ever. Only a connection that stayed up for
/// ``healthyAfter`` resets the backoff.
public struct ReconnectPacer: Sendable, Equatable {
    public private(set) var backoff: Backoff
    /// How long a connection must stay up before the next drop starts again from a short delay.
    public var healthyAfter: Duration
    /// When the current connection was accepted, if one is up.
    public private(set) var connectedAt: ContinuousClock.Instant?

    public init(backoff: Backoff, healthyAfter: Duration = .seconds(10)) {
        self.backoff = backoff
        self.healthyAfter = healthyAfter
    }

    /// The upgrade succeeded.
    public mutating func connected(at now: ContinuousClock.Instant) {
        connectedAt = now
    }

    /// The connection ended, or never came up: returns how long to wait before dialling again.
    public mutating func disconnected(
        at now: ContinuousClock.Instant, retryAfter: Duration?, using random: inout some RandomNumberGenerator
    ) -> Duration {
        if let connectedAt, now - connectedAt >= healthyAfter { backoff.reset() }
        connectedAt = nil
        return backoff.failure(retryAfter: retryAfter, using: &random)
    }

    /// ``disconnected(at:retryAfter:using:)`` with random numbers of its own (``JitterRandom``).
    public mutating func disconnected(at now: ContinuousClock.Instant, retryAfter: Duration?) -> Duration {
        var random = JitterRandom()
        return disconnected(at: now, retryAfter: retryAfter, using: &random)
    }
}
