/// How long to wait before the next attempt after a temporary failure: exponential from
/// ``initial`` up to ``maximum``, with jitter so that many clients that failed together do not
/// retry together, and never sooner than the server's `Retry-After`.
///
/// The one retry policy of the client: every kind of request (messages, receipts, delivered,
/// read, the live upgrade) waits by it after a temporary failure. A `Retry-After` reaches it
/// already read and clamped, by ``ResponseVerdict``.
public struct Backoff: Sendable, Equatable {
    public var initial: Duration
    public var maximum: Duration
    /// Consecutive failures so far; a success resets it.
    public private(set) var failures = 0

    public init(initial: Duration = .milliseconds(500), maximum: Duration = .seconds(30)) {
        self.initial = initial
        self.maximum = maximum
    }

    /// Records a failure and returns the delay before the next attempt: a random value between
    /// half and all of `initial × 2^(failures-1)` (capped at ``maximum``), or `retryAfter` if longer.
    public mutating func failure(retryAfter: Duration? = nil, using random: inout some RandomNumberGenerator)
        -> Duration
    {
        let exponent = min(failures, 30)
        failures += 1
        let ceiling = min(initial * (1 << exponent), maximum)
        let fraction = Double(UInt32.random(in: 0...UInt32.max, using: &random)) / Double(UInt32.max)
        let jittered = ceiling * (0.5 + 0.5 * fraction)
        guard let retryAfter else { return jittered }
        return max(jittered, retryAfter)
    }

    /// Records a failure with random numbers of its own (``JitterRandom``).
    public mutating func failure(retryAfter: Duration? = nil) -> Duration {
        var random = JitterRandom()
        return failure(retryAfter: retryAfter, using: &random)
    }

    public mutating func reset() {
        failures = 0
    }
}
