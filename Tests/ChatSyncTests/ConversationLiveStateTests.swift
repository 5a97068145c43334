import ChatDomain
import ChatTestSupport
import Testing

@testable import ChatSync

/// The live worker's per-conversation rules, as tables: each row feeds events at given moments
/// and says the actions every one of them must return.
@Suite(.ownThreads) struct ConversationLiveStateTests {
    typealias Event = ConversationLiveState.Event
    typealias Action = ConversationLiveState.Action

    static let t0 = ContinuousClock.now
    static let grace = Duration.milliseconds(100)
    /// Backoff delays with the jitter at its top (``BackoffTests/Fixed``): 50 ms, 100 ms, 200 ms, …
    static let backoff = Backoff(initial: .milliseconds(50), maximum: .seconds(1))
    /// Messages 1…9 from bob, `m[n]` being sequence n.
    static let m: [Message] = (0...9).map { sequence in
        Message(
            sequence: sequence, clientMessageID: .random(), senderID: try! UserID("bob"), text: "m\(sequence)",
            sentAt: "2026-11-29T10:00:00.000Z")
    }

    static func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }

    struct Step: Sendable {
        var at: Int
        var event: Event
        var expected: [Action]
        init(_ at: Int, _ event: Event, _ expected: [Action]) {
            self.at = at
            self.event = event
            self.expected = expected
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        var name: String
        var steps: [Step]
        var testDescription: String { name }
    }

    static let rows: [Row] = [
        Row(
            name: "live saves committed together: my delivered position is posted after the last of them is saved",
            steps: [
                Step(0, .follow(from: 0), []),
                Step(0, .liveMessage(m[1]), [.save([m[1]], .live)]),
                Step(0, .liveMessage(m[2]), [.save([m[2]], .live)]),
                Step(0, .saved(.live), []),
                Step(0, .saved(.live), [.sendDelivered(upTo: 2)]),
            ]),
        Row(
            name: "a delivered post that ends while a live save is out posts nothing more until that save is done",
            steps: [
                Step(0, .follow(from: 0), []),
                Step(0, .liveMessage(m[1]), [.save([m[1]], .live)]),
                Step(0, .saved(.live), [.sendDelivered(upTo: 1)]),
                Step(0, .liveMessage(m[2]), [.save([m[2]], .live)]),
                Step(1, .deliveredFinished(.success(1)), [.storeDelivered(1)]),
                Step(2, .saved(.live), [.sendDelivered(upTo: 2)]),
            ]),
        Row(
            name: "a failed live save counts as done: the next saved one posts the delivered position",
            steps: [
                Step(0, .follow(from: 0), []),
                Step(0, .liveMessage(m[1]), [.save([m[1]], .live)]),
                Step(0, .failed(.live, reason: "disk full", retryAfter: nil), []),
                Step(0, .liveMessage(m[2]), [.save([m[2]], .live)]),
                Step(0, .saved(.live), [.sendDelivered(upTo: 2)]),
            ]),
        Row(
            name: "a live message next in line is saved, then its delivered position posted",
            steps: [
                Step(0, .follow(from: 0), []),
                Step(0, .liveMessage(m[1]), [.save([m[1]], .live)]),
                Step(0, .saved(.live), [.sendDelivered(upTo: 1)]),
            ]),
        Row(
            name:
                "a live message past a hole is held; the hole gets its grace period; the filling one saves both in order",
            steps: [
                Step(0, .follow(from: 0), []),
                Step(0, .liveMessage(m[2]), [.save([], .live)]),
                Step(0, .saved(.live), [.scheduleGapCheck(at: at(100))]),
                Step(10, .liveMessage(m[1]), [.save([m[1], m[2]], .live)]),
                Step(10, .saved(.live), [.sendDelivered(upTo: 2)]),
            ]),
        Row(
            name:
                "a gap check before the grace period ends waits for it; after it, the hole is caught up and the held message saved",
            steps: [
                Step(0, .follow(from: 0), []),
                Step(0, .liveMessage(m[2]), [.save([], .live)]),
                Step(0, .saved(.live), [.scheduleGapCheck(at: at(100))]),
                Step(50, .gapCheckDue, [.scheduleGapCheck(at: at(100))]),
                Step(100, .gapCheckDue, [.catchUp(.gap, from: 0)]),
                Step(120, .caughtUp(.gap, through: 1, myDelivered: nil), [.save([m[2]], .gap)]),
                Step(120, .saved(.gap), [.sendDelivered(upTo: 2)]),
            ]),
        Row(
            name: "a failed gap catch-up is reported and checked again after a growing backoff",
            steps: [
                Step(0, .follow(from: 0), []),
                Step(0, .liveMessage(m[2]), [.save([], .live)]),
                Step(0, .saved(.live), [.scheduleGapCheck(at: at(100))]),
                Step(100, .gapCheckDue, [.catchUp(.gap, from: 0)]),
                Step(
                    120, .failed(.gap, reason: "503 busy", retryAfter: nil),
                    [.report("gap catch-up failed: 503 busy"), .scheduleGapCheck(at: at(170))]),
                Step(150, .liveMessage(m[3]), [.save([], .live)]),
                Step(150, .saved(.live), []),
                Step(170, .gapCheckDue, [.catchUp(.gap, from: 0)]),
                Step(
                    180, .failed(.gap, reason: "disk full", retryAfter: nil),
                    [.report("gap catch-up failed: disk full"), .scheduleGapCheck(at: at(280))]),
            ]),
        Row(
            name: "a failed gap catch-up waits out the server's Retry-After",
            steps: [
                Step(0, .follow(from: 0), []),
                Step(0, .liveMessage(m[2]), [.save([], .live)]),
                Step(0, .saved(.live), [.scheduleGapCheck(at: at(100))]),
                Step(100, .gapCheckDue, [.catchUp(.gap, from: 0)]),
                Step(
                    100, .failed(.gap, reason: "503 busy", retryAfter: .seconds(2)),
                    [.report("gap catch-up failed: 503 busy"), .scheduleGapCheck(at: at(2_100))]),
            ]),
        Row(
            name: "a gap catch-up that leaves the hole open is paced like a failure, but not reported",
            steps: [
                Step(0, .follow(from: 0), []),
                Step(0, .liveMessage(m[2]), [.save([], .live)]),
                Step(0, .saved(.live), [.scheduleGapCheck(at: at(100))]),
                Step(100, .gapCheckDue, [.catchUp(.gap, from: 0)]),
                Step(110, .caughtUp(.gap, through: 0, myDelivered: nil), [.save([], .gap)]),
                Step(110, .saved(.gap), [.scheduleGapCheck(at: at(160))]),
            ]),
        Row(
            name: "a failed idle catch-up is reported the same way as a gap's, and nothing is retried",
            steps: [
                Step(0, .follow(from: 5), []),
                Step(0, .idleDue, [.catchUp(.idle, from: 5)]),
                Step(
                    10, .failed(.idle, reason: "503 busy", retryAfter: nil), [.report("idle catch-up failed: 503 busy")]
                ),
            ]),
        Row(
            name: "an idle catch-up that brings more posts the delivered position",
            steps: [
                Step(0, .follow(from: 5), []),
                Step(0, .idleDue, [.catchUp(.idle, from: 5)]),
                Step(10, .caughtUp(.idle, through: 7, myDelivered: nil), [.save([], .idle)]),
                Step(10, .saved(.idle), [.sendDelivered(upTo: 7)]),
            ]),
        Row(
            name: "a reconnect's or a live event's failure is left to the caller, which throws it",
            steps: [
                Step(0, .follow(from: 0), []),
                Step(0, .failed(.reconnect, reason: "503 busy", retryAfter: nil), []),
                Step(0, .failed(.live, reason: "disk full", retryAfter: nil), []),
            ]),
        Row(
            name:
                "a reconnect starts following at what it caught up, and posts delivered past what the receipts confirmed",
            steps: [
                Step(0, .reconnected(head: 7), [.catchUp(.reconnect, from: 7)]),
                Step(10, .caughtUp(.reconnect, through: 9, myDelivered: 3), [.save([], .reconnect)]),
                Step(10, .saved(.reconnect), [.sendDelivered(upTo: 9)]),
            ]),
        Row(
            name: "a reconnect whose receipts confirm everything it caught up posts nothing",
            steps: [
                Step(0, .reconnected(head: 7), [.catchUp(.reconnect, from: 7)]),
                Step(10, .caughtUp(.reconnect, through: 9, myDelivered: 9), [.save([], .reconnect)]),
                Step(10, .saved(.reconnect), []),
            ]),
        Row(
            name:
                "a reconnect catches up from a hole still open, not from the store's head, and saves what was held past it",
            steps: [
                Step(0, .follow(from: 2), []),
                Step(0, .liveMessage(m[4]), [.save([], .live)]),
                Step(0, .saved(.live), [.scheduleGapCheck(at: at(100)), .sendDelivered(upTo: 2)]),
                Step(5, .deliveredFinished(.success(2)), [.storeDelivered(2)]),
                Step(10, .reconnected(head: 3), [.catchUp(.reconnect, from: 2)]),
                Step(20, .caughtUp(.reconnect, through: 3, myDelivered: 0), [.save([m[4]], .reconnect)]),
                Step(20, .saved(.reconnect), [.sendDelivered(upTo: 4)]),
            ]),
        Row(
            name: "delivered posts go one at a time, the latest wish next",
            steps: [
                Step(0, .follow(from: 0), []),
                Step(0, .liveMessage(m[1]), [.save([m[1]], .live)]),
                Step(0, .saved(.live), [.sendDelivered(upTo: 1)]),
                Step(1, .liveMessage(m[2]), [.save([m[2]], .live)]),
                Step(1, .saved(.live), []),
                Step(2, .liveMessage(m[3]), [.save([m[3]], .live)]),
                Step(2, .saved(.live), []),
                Step(5, .deliveredFinished(.success(1)), [.storeDelivered(1), .sendDelivered(upTo: 3)]),
                Step(6, .deliveredFinished(.success(3)), [.storeDelivered(3)]),
            ]),
        Row(
            name: "a failed delivered post waits its backoff (Retry-After honoured) before the next",
            steps: [
                Step(0, .follow(from: 0), []),
                Step(0, .liveMessage(m[1]), [.save([m[1]], .live)]),
                Step(0, .saved(.live), [.sendDelivered(upTo: 1)]),
                Step(10, .deliveredFinished(.failure(.init(retryAfter: nil))), [.scheduleDeliveredRetry(at: at(60))]),
                Step(20, .liveMessage(m[2]), [.save([m[2]], .live)]),
                Step(20, .saved(.live), []),
                Step(60, .deliveredRetryDue, [.sendDelivered(upTo: 2)]),
                Step(
                    70, .deliveredFinished(.failure(.init(retryAfter: .seconds(3)))),
                    [.scheduleDeliveredRetry(at: at(3_070))]),
            ]),
        Row(
            name: "a receipt past what arrived opens a hole; my own receipt counts as confirmed delivered",
            steps: [
                Step(0, .follow(from: 0), []),
                Step(
                    0, .receipt(MemberPosition(deliveredUpTo: 1, readUpTo: 0), mine: true),
                    [.scheduleGapCheck(at: at(100))]),
                Step(10, .liveMessage(m[1]), [.save([m[1]], .live)]),
                Step(10, .saved(.live), []),
            ]),
        Row(
            name: "a conversation not followed ignores live messages and idle periods",
            steps: [
                Step(0, .liveMessage(m[1]), []),
                Step(0, .idleDue, []),
                Step(0, .receipt(MemberPosition(deliveredUpTo: 4, readUpTo: 4), mine: false), []),
            ]),
        Row(
            name: "a stopped worker forgets what it had scheduled, so a restarted one schedules again",
            steps: [
                Step(0, .follow(from: 0), []),
                Step(0, .liveMessage(m[2]), [.save([], .live)]),
                Step(0, .saved(.live), [.scheduleGapCheck(at: at(100))]),
                Step(10, .stopped, []),
                Step(20, .liveMessage(m[3]), [.save([], .live)]),
                Step(20, .saved(.live), [.scheduleGapCheck(at: at(100))]),
            ]),
    ]

    @Test("the live state machine's table", arguments: rows)
    func table(_ row: Row) {
        var state = ConversationLiveState(grace: Self.grace, backoff: Self.backoff)
        var random = BackoffTests.Fixed(value: .max)
        for (index, step) in row.steps.enumerated() {
            let actions = state.handle(step.event, at: Self.at(step.at), using: &random)
            #expect(actions == step.expected, "step \(index + 1): \(step.event)")
        }
    }

    @Test("the outbox waits after a temporary failure, and a reconnect lets it try again at once")
    func outboxPacing() {
        var state = ConversationLiveState(grace: Self.grace, backoff: Self.backoff)
        #expect(state.outboxDue(at: Self.t0))
        let delay = state.outboxFailed(retryAfter: .seconds(2), at: Self.t0)
        #expect(delay == .seconds(2))
        #expect(!state.outboxDue(at: Self.at(1_999)))
        #expect(state.outboxDue(at: Self.at(2_000)))
        _ = state.outboxFailed(retryAfter: nil, at: Self.t0)
        #expect(!state.outboxDue(at: Self.t0))
        _ = state.handle(.reconnected(head: 0), at: Self.t0)
        _ = state.handle(.caughtUp(.reconnect, through: 0, myDelivered: 0), at: Self.t0)
        _ = state.handle(.saved(.reconnect), at: Self.t0)
        #expect(state.outboxDue(at: Self.t0))
    }
}
