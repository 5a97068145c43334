import ChatTestSupport
import Testing

@testable import ChatSync

/// The live connection's life from one dial to the next, with no socket and no clock: which
/// waits follow which endings.
@Suite(.ownThreads) struct LiveConnectionStateTests {
    /// Jitter at its top: every delay is its ceiling.
    struct Highest: RandomNumberGenerator {
        mutating func next() -> UInt64 { .max }
    }

    let start = ContinuousClock.now

    /// A connection of 1, 2, 4… s backoff (8 s at most) that stays healthy after 10 s.
    func link() -> LiveConnectionState {
        LiveConnectionState(
            pacer: ReconnectPacer(
                backoff: Backoff(initial: .seconds(1), maximum: .seconds(8)), healthyAfter: .seconds(10)),
            untrustedWait: .seconds(60))
    }

    /// Dials, connects at `start + at` seconds, ends with `error` at `start + at + lasted`,
    /// returns what comes next.
    func cycle(
        _ link: inout LiveConnectionState, at seconds: Int, lasted: Duration, _ error: SyncError
    ) -> LiveConnectionState.Next {
        var random = Highest()
        link.dial()
        link.connected(at: start + .seconds(seconds))
        #expect(link.isConnected)
        link.disconnected(error)
        #expect(!link.isConnected)
        return link.streamEnded(at: start + .seconds(seconds) + lasted, using: &random)
    }

    static let lost = SyncError.temporary("live connection lost", retryAfter: nil)

    @Test("connections that die young wait longer each time; a healthy one starts the backoff again")
    func backoffGrowsAndResets() {
        var link = link()
        let waits = (0..<5).map { step in cycle(&link, at: step * 20, lasted: .milliseconds(5), Self.lost) }
        #expect(
            waits
                == [1, 2, 4, 8, 8].map {
                    LiveConnectionState.Next.wait(delay: .seconds($0), floor: .zero, wakeable: true)
                })
        #expect(
            cycle(&link, at: 200, lasted: .seconds(11), Self.lost)
                == .wait(delay: .seconds(1), floor: .zero, wakeable: true))
    }

    @Test(
        "what the server asked for, or a refused certificate's wait, is waited whole",
        arguments: [
            (SyncError.temporary("503", retryAfter: .seconds(5)), Duration.seconds(5)),
            (SyncError.untrusted("certificate refused"), Duration.seconds(60)),
        ])
    func floors(error: SyncError, floor: Duration) {
        var link = link()
        #expect(
            cycle(&link, at: 0, lasted: .milliseconds(5), error) == .wait(delay: floor, floor: floor, wakeable: true))
    }

    @Test("a renewed token dials again at once, without a wait or a longer backoff")
    func renewedTokenDialsAtOnce() {
        var link = link()
        var random = Highest()
        link.dial()
        link.connected(at: start)
        link.disconnected(.unauthorized("401: token expired"))
        link.tokenRenewed()
        #expect(link.state == .renewed)
        #expect(link.streamEnded(at: start + .milliseconds(5), using: &random) == .dial)
        // The refusal did not count as a failure: the next drop waits the first step.
        #expect(
            cycle(&link, at: 20, lasted: .milliseconds(5), Self.lost)
                == .wait(delay: .seconds(1), floor: .zero, wakeable: true))
    }

    @Test("an early wake-up is spent once per run of failures, and given back by a connection")
    func wakeOncePerRun() {
        var link = link()
        var random = Highest()
        _ = cycle(&link, at: 0, lasted: .milliseconds(5), Self.lost)
        link.wokenEarly()
        link.dial()
        link.disconnected(Self.lost)
        #expect(
            link.streamEnded(at: start + .seconds(5), using: &random)
                == .wait(delay: .seconds(2), floor: .zero, wakeable: false))
        #expect(
            cycle(&link, at: 20, lasted: .milliseconds(5), Self.lost)
                == .wait(delay: .seconds(4), floor: .zero, wakeable: true))
    }

    @Test("the states a connection passes through")
    func states() {
        var link = link()
        var random = Highest()
        #expect(link.state == .idle)
        link.dial()
        #expect(link.state == .dialing)
        link.connected(at: start)
        #expect(link.state == .connected)
        link.disconnected(Self.lost)
        #expect(link.state == .ended(Self.lost))
        _ = link.streamEnded(at: start + .seconds(1), using: &random)
        #expect(link.state == .waiting)
    }
}
