import ChatTestSupport
import Testing

@testable import ChatSync

@Suite(.ownThreads) struct BackoffTests {
    struct Fixed: RandomNumberGenerator {
        var value: UInt64
        mutating func next() -> UInt64 { value }
    }

    @Test("delays double from about 0.5 s up to the 30 s cap, with jitter between half and all")
    func grows() {
        var backoff = Backoff()
        var high = Fixed(value: .max)
        let delays = (0..<10).map { _ in backoff.failure(using: &high) }
        #expect(
            delays.prefix(7) == [
                .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(30),
            ])
        #expect(delays.allSatisfy { $0 <= .seconds(30) })
        var low = Fixed(value: 0)
        var other = Backoff()
        #expect(other.failure(using: &low) == .milliseconds(250))
    }

    @Test("Retry-After is honoured when it is longer; a success starts over")
    func retryAfter() {
        var backoff = Backoff()
        var random = Fixed(value: 0)
        #expect(backoff.failure(retryAfter: .seconds(7), using: &random) == .seconds(7))
        #expect(backoff.failures == 1)
        backoff.reset()
        #expect(backoff.failure(retryAfter: .milliseconds(1), using: &random) == .milliseconds(250))
    }
}

@Suite(.ownThreads) struct GapTrackerTests {
    let start = ContinuousClock.now

    @Test("in-order sequences advance; a hole is held for the grace period, then a catch-up is due")
    func hole() {
        var gaps = GapTracker(caughtUpTo: 418)
        gaps.stored([419], at: start)
        #expect(gaps.caughtUpTo == 419 && gaps.missing == nil)
        gaps.stored([422], at: start)
        #expect(gaps.missing == 420...421)
        #expect(!gaps.catchUpDue(at: start + .milliseconds(100)))
        #expect(gaps.catchUpDue(at: start + .milliseconds(500)))
    }

    @Test("late or reordered events close the hole without a catch-up")
    func reordered() {
        var gaps = GapTracker(caughtUpTo: 0)
        gaps.stored([3, 1], at: start)
        #expect(gaps.caughtUpTo == 1)
        gaps.stored([2], at: start + .milliseconds(10))
        #expect(gaps.caughtUpTo == 3 && gaps.missing == nil && gaps.deadline == nil)
        #expect(!gaps.catchUpDue(at: start + .seconds(5)))
    }

    @Test("duplicates and old sequences change nothing; a catch-up closes the hole")
    func catchUp() {
        var gaps = GapTracker(caughtUpTo: 10)
        gaps.stored([10, 9, 14], at: start)
        #expect(gaps.caughtUpTo == 10)
        gaps.caughtUp(through: 12, at: start)
        #expect(gaps.missing == 13...13)
        gaps.caughtUp(through: 15, at: start)
        #expect(gaps.caughtUpTo == 15 && gaps.missing == nil)
    }
}

@Suite(.ownThreads) struct PositionRequestStateTests {
    @Test("one request at a time, latest wins, never lower")
    func latestWins() {
        var state = PositionRequestState()
        state.want(5)
        #expect(state.nextRequest() == 5)
        state.want(7)
        state.want(6)
        #expect(state.nextRequest() == nil)
        state.finished(confirmed: 5)
        #expect(state.nextRequest() == 7)
        state.finished(confirmed: 7)
        #expect(state.nextRequest() == nil)
        state.want(3)
        #expect(state.nextRequest() == nil)
    }

    @Test("a failure is retried by the next attempt; a clamped answer is not asked again")
    func failureAndClamp() {
        var state = PositionRequestState(wanted: 9, confirmed: 2)
        #expect(state.nextRequest() == 9)
        state.finished(confirmed: nil)
        #expect(state.nextRequest() == 9)
        state.finished(confirmed: 8) // the server's last sequence is 8
        #expect(state.confirmed == 8)
        #expect(state.nextRequest() == nil)
        state.want(10)
        #expect(state.nextRequest() == 10)
    }
}

@Suite(.ownThreads) struct GapTrackerTailTests {
    @Test("a receipt past what arrived opens a hole at the tail; the catch-up closes it")
    func tailHole() {
        let start = ContinuousClock.now
        var gaps = GapTracker(caughtUpTo: 199)
        gaps.exists(through: 199, at: start)
        #expect(gaps.missing == nil)
        gaps.exists(through: 200, at: start)
        #expect(gaps.missing == 200...200)
        #expect(gaps.catchUpDue(at: start + .seconds(1)))
        gaps.caughtUp(through: 200, at: start)
        #expect(gaps.missing == nil && gaps.deadline == nil)
    }
}
