import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// No server can make the client spin, hammer it, or hang silently: every kind of request backs
/// off, a one-pass sync has a budget, and the live worker slows down when it keeps being dropped.
@Suite(.ownThreads) struct TrustPacingTests {
    /// A server that is fine, except that any path containing `failing` gets `failure`.
    static func server(live: CannedServer.Live, failing: String, failure: CannedServer.Reply) throws -> CannedServer {
        try CannedServer(live: live) { _, path in
            if path.contains(failing) { return failure }
            if path == "/v1/me" { return .json(200, #"{"userId":"alice"}"#) }
            if path == "/v1/conversations" { return .json(200, "{\"items\":[\(HostileServerTests.good)]}") }
            if path.contains("/messages?after=0") {
                return .json(200, "{\"items\":[\(HostileServerTests.goodMessage)],\"hasMore\":false}")
            }
            if path.contains("/messages") { return .json(200, #"{"items":[],"hasMore":false}"#) }
            if path.contains("/receipts") { return .json(200, #"{"members":[]}"#) }
            if path.hasSuffix("/delivered") { return .json(200, #"{"deliveredUpTo":1}"#) }
            return .json(404, #"{"error":"no such endpoint"}"#)
        }
    }

    static func aliceStore(in directory: TemporaryDirectory) throws -> Store {
        try Store.create(at: directory.path + "/store", manifest: Manifest(userID: try UserID("alice")))
    }

    /// Backoff slow enough that a few seconds tell "backs off" from "spins".
    static var pacedOptions: SyncEngine.Options {
        var options = fastOptions
        options.backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(1))
        return options
    }

    struct DeliveredCase: Sendable, CustomTestStringConvertible {
        var name: String
        var headers: [String: String]
        var most: Int
        var testDescription: String { name }
    }

    @Test(
        "a server answering 503 to POST /delivered gets a few requests a second, not thousands",
        arguments: [
            DeliveredCase(name: "503 without Retry-After: backoff", headers: [:], most: 12),
            DeliveredCase(name: "503 with Retry-After: 2 is honoured", headers: ["Retry-After": "2"], most: 3),
        ])
    func deliveredBacksOff(_ row: DeliveredCase) async throws {
        let server = try Self.server(
            live: .holdOpen, failing: "/delivered",
            failure: CannedServer.Reply(status: 503, body: Array(#"{"error":"busy"}"#.utf8), headers: row.headers))
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let engine = try SyncEngine(
            store: try Self.aliceStore(in: directory), server: try ServerAddress(server.url), token: "t",
            options: Self.pacedOptions)
        let logs = SyncFaultTests.Log()
        let worker = Task { await engine.runLive { logs.append($0) } }
        let delivered = { server.seenRequests.filter { $0.hasSuffix("/delivered") }.count }
        do {
            try await waitUntil("the worker posts its delivered position") { delivered() > 0 }
        } catch {
            // Say what the worker did instead (a parallel run once waited 20 s here).
            Issue.record("the worker's log: \(logs.all); the server saw: \(server.seenRequests)")
            throw error
        }
        // A measurement window: how many requests the worker makes in 3 s. The claim is a rate,
        // so the window is the thing measured; no event says "it has stopped asking".
        let before = delivered()
        try await Task.sleep(for: .seconds(3))
        let during = delivered() - before
        worker.cancel()
        #expect(await worker.value == nil)
        #expect(during <= row.most, "\(during) POST /delivered in 3 s")
    }

    @Test("a server that answers POST /read with a lower position is not asked again on every outbox poll")
    func readNotRepeated() async throws {
        let server = try Self.server(live: .holdOpen, failing: "/read", failure: .json(200, #"{"readUpTo":0}"#))
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let store = try Self.aliceStore(in: directory)
        let id = try ConversationID("c1")
        try StoreWriter(store: store).saveInfo(ConversationInfo(title: "Fine", members: []), for: id)
        _ = try Outbox(store.conversation(id)).wantRead(upTo: 1)
        let engine = try SyncEngine(
            store: store, server: try ServerAddress(server.url), token: "t", options: fastOptions)
        let worker = Task { await engine.runLive { _ in } }
        let reads = { server.seenRequests.filter { $0.hasSuffix("/read") }.count }
        try await waitUntil("the worker posts the read position") { reads() > 0 }
        let before = reads()
        // A measurement window (a rate, so no event to wait for): the outbox is polled every
        // 20 ms, so a worker that re-posted on every poll would make about 150 POSTs in it.
        try await Task.sleep(for: .seconds(3))
        let during = reads() - before
        worker.cancel()
        #expect(await worker.value == nil)
        #expect(during <= 2, "\(during) POST /read in 3 s")
    }

    @Test("a server that accepts the live upgrade and closes at once is redialled less and less often")
    func reconnectBacksOffAfterEarlyClose() async throws {
        let server = try TestServer(faults: "live-close=1ms")
        let directory = try TemporaryDirectory()
        let engine = try engine(try clientStore("alice", in: directory), server, options: Self.pacedOptions)
        let lines = LogLines()
        let worker = Task { await engine.runLive { line in lines.append(line) } }
        let connections = { lines.lines.filter { $0.hasPrefix("connected to") }.count }
        try await waitUntil("the worker connects") { connections() > 0 }
        let before = connections()
        // A measurement window (a rate, so no event to wait for): without backoff the worker
        // would redial every few milliseconds.
        try await Task.sleep(for: .seconds(3))
        let during = connections() - before
        worker.cancel()
        #expect(await worker.value == nil)
        #expect(during <= 12, "\(during) upgrades in 3 s: \(lines.lines.suffix(6))")
    }

    @Test("a live upgrade refused with 503 and Retry-After: 2 is not redialled sooner")
    func upgradeRetryAfterHonoured() async throws {
        let server = try Self.server(
            live: .answer, failing: "/v1/live",
            failure: CannedServer.Reply(
                status: 503, body: Array(#"{"error":"busy"}"#.utf8), headers: ["Retry-After": "2"]))
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let engine = try SyncEngine(
            store: try Self.aliceStore(in: directory), server: try ServerAddress(server.url), token: "t",
            options: Self.pacedOptions)
        let worker = Task { await engine.runLive { _ in } }
        let upgrades = { server.seenRequests.filter { $0.hasSuffix("/v1/live") }.count }
        try await waitUntil("the worker dials") { upgrades() > 0 }
        let before = upgrades()
        // A measurement window (a rate, so no event to wait for): Retry-After: 2 allows at most
        // two upgrades in 3 s.
        try await Task.sleep(for: .seconds(3))
        let during = upgrades() - before
        worker.cancel()
        #expect(await worker.value == nil)
        #expect(during <= 2, "\(during) upgrades in 3 s")
    }

    @Test("reconnect pacing: growing delays while connections die young, reset after a healthy one")
    func reconnectPacer() {
        var pacer = ReconnectPacer(
            backoff: Backoff(initial: .seconds(1), maximum: .seconds(8)), healthyAfter: .seconds(10))
        var random = SplitMix64(seed: 1)
        let start = ContinuousClock.now
        var ceilings: [Duration] = []
        for step in 0..<6 {
            let opened = start + .seconds(step * 20)
            pacer.connected(at: opened)
            ceilings.append(pacer.disconnected(at: opened + .milliseconds(5), retryAfter: nil, using: &random))
        }
        // Each delay is at least half its ceiling: 1, 2, 4, 8, 8, 8 seconds.
        for (delay, ceiling) in zip(ceilings, [1, 2, 4, 8, 8, 8]) {
            #expect(delay >= .milliseconds(ceiling * 500) && delay <= .seconds(ceiling), "\(ceilings)")
        }
        let opened = start + .seconds(200)
        pacer.connected(at: opened)
        let afterHealthy = pacer.disconnected(at: opened + .seconds(11), retryAfter: nil, using: &random)
        #expect(afterHealthy <= .seconds(1))
        #expect(pacer.disconnected(at: opened + .seconds(12), retryAfter: .seconds(5), using: &random) >= .seconds(5))
    }

    @Test("a server that trickles its answer ends the pass within its budget, naming the server and the request")
    func trickleEndsWithinBudget() async throws {
        let server = try CannedServer { _, _ in
            CannedServer.Reply(
                status: 200, body: Array(repeating: 0x20, count: 500) + Array(#"{"userId":"alice"}"#.utf8),
                trickle: .milliseconds(100))
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        var options = SyncEngine.Options()
        options.requestTimeout = .seconds(3)
        options.passBudget = .seconds(2)
        let engine = try SyncEngine(
            store: try Self.aliceStore(in: directory), server: try ServerAddress(server.url), token: "t",
            options: options)
        let started = ContinuousClock.now
        let report = await engine.syncOnce()
        let took = ContinuousClock.now - started
        // Without the budget the answer takes 50 s (500 bytes, one per 100 ms); the bound is
        // loose because a loaded machine (a parallel `swift test`) stretches a 2 s budget.
        #expect(took < .seconds(30), "the pass took \(took)")
        #expect(report.outcome == .incomplete)
        #expect(
            report.problems.contains {
                $0.contains("127.0.0.1:\(server.port)") && $0.contains("GET /v1/me") && $0.contains("2.0s")
            }, "\(report.problems)")
    }

    @Test("chatdir sync against a server that trickles exits 75 within about 30 s, saying what it waited for")
    func trickleEndToEnd() throws {
        let server = try CannedServer { _, _ in
            CannedServer.Reply(
                status: 200, body: Array(repeating: 0x20, count: 500) + Array(#"{"userId":"alice"}"#.utf8),
                trickle: .seconds(1))
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        _ = try Self.aliceStore(in: directory)
        let errors = Pipe()
        let started = ContinuousClock.now
        let process = try ChatdirProcess.start(
            ["sync", "--store", directory.path + "/store", "--server", server.url],
            environment: ["CHATDIR_TOKEN": "alice-token"],
            standardInput: nil, standardError: errors)
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let took = ContinuousClock.now - started
        #expect(process.terminationStatus == 75, "\(stderr)")
        // Without the 30 s budget the answer takes 500 s; the bound leaves room for a loaded machine.
        #expect(took < .seconds(120), "took \(took)")
        #expect(
            stderr.contains("127.0.0.1:\(server.port)") && stderr.contains("GET /v1/me") && stderr.contains("30.0s"),
            "\(stderr)")
    }
}

/// Live events held past a hole, and the hole bookkeeping, stay bounded whatever a server sends.
@Suite(.ownThreads) struct GapTrackerCapTests {
    @Test("past 10,000 sequences held beyond a hole, the rest is dropped and a catch-up is due at once")
    func heldSequencesAreCapped() {
        let now = ContinuousClock.now
        var gaps = GapTracker(caughtUpTo: 1)
        let dropped = gaps.stored(3...10_010, at: now)
        #expect(gaps.beyondHole.count <= 10_000)
        #expect(dropped == Array(10_003...10_010))
        let due = gaps.catchUpDue(at: now)
        #expect(due, "a catch-up is due at once, not after the grace period")
        #expect(gaps.deadline == now)
        // The hole filling by events leaves the dropped ones missing: a catch-up still fetches them.
        gaps.stored([2], at: now)
        #expect(gaps.caughtUpTo == 10_002)
        #expect(gaps.missing == 10_003...10_010)
        gaps.caughtUp(through: 10_010, at: now)
        let settled = gaps.missing == nil && gaps.beyondHole.isEmpty && !gaps.catchUpDue(at: now)
        #expect(settled)
    }

    @Test("a server that sends 10,008 live messages past a hole it never fills leaves at most 10,000 held")
    func workerHoldsAtMostTheCap() async throws {
        let events = (3...10_010).map { sequence in
            #"{"type":"message","conversationId":"c1","message":{"clientMessageId":"\#(UUID().uuidString)","senderId":"bob","text":"m","sequence":\#(sequence),"sentAt":"2026-11-29T10:00:00.000Z"}}"#
        }
        let server = try TrustPacingTests.server(live: .send(events), failing: "/never", failure: .json(500, "{}"))
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let engine = try SyncEngine(
            store: try TrustPacingTests.aliceStore(in: directory), server: try ServerAddress(server.url), token: "t",
            options: fastOptions)
        let worker = Task { await engine.runLive { _ in } }
        let id = try ConversationID("c1")
        // 1.5 s alone; in the parallel suite beside the Synapse suites it has taken over 60 s.
        try await waitUntil("the worker has seen the last event", timeout: .seconds(300)) {
            let gaps = await engine.liveState.conversations[id]?.gaps
            return gaps?.knownToExist == 10_010 || gaps?.beyondHole.contains(10_010) == true
        }
        let held = await engine.liveState.conversations[id]?.held.count ?? 0
        worker.cancel()
        #expect(await worker.value == nil)
        #expect(held <= 10_000)
    }

    @Test("live events for 2,000 conversations the server does not list cost a few discoveries and leave no state")
    func inventedConversations() async throws {
        let events =
            (1...2_000).map { index in
                #"{"type":"message","conversationId":"x\#(index)","message":{"clientMessageId":"\#(UUID().uuidString)","senderId":"bob","text":"m","sequence":1,"sentAt":"2026-11-29T10:00:00.000Z"}}"#
            } + [
                #"{"type":"message","conversationId":"c1","message":{"clientMessageId":"\#(UUID().uuidString)","senderId":"bob","text":"last","sequence":2,"sentAt":"2026-11-29T10:00:01.000Z"}}"#
            ]
        let server = try TrustPacingTests.server(live: .send(events), failing: "/never", failure: .json(500, "{}"))
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let store = try TrustPacingTests.aliceStore(in: directory)
        // One discovery per interval is the rule; an interval longer than the test keeps the
        // count independent of how long a loaded machine takes over the 2,000 events (5 s, the
        // default, let 40 s of a parallel run count 9).
        var options = fastOptions
        options.discoveryInterval = .seconds(600)
        let engine = try SyncEngine(store: store, server: try ServerAddress(server.url), token: "t", options: options)
        let worker = Task { await engine.runLive { _ in } }
        let c1 = try ConversationID("c1")
        // Under a second alone; in the parallel suite it has taken over 60 s.
        try await waitUntil("the event after the invented ones is stored", timeout: .seconds(300)) {
            (try? store.conversation(c1).newestMessages(limit: 1).messages.last?.sequence) == 2
        }
        let discoveries = server.seenRequests.filter { $0.hasSuffix("/v1/conversations") }.count
        let followed = await engine.liveState.followed.count
        worker.cancel()
        #expect(await worker.value == nil)
        #expect(discoveries <= 4, "\(discoveries) GET /v1/conversations for 2,000 invented IDs")
        #expect(followed == 1)
        #expect(try store.conversationIDs() == [c1])
    }

    @Test("the sequence that fills the hole is never dropped, even when the tracker is full")
    func fillingSequenceIsKept() {
        let now = ContinuousClock.now
        var gaps = GapTracker(caughtUpTo: 0, heldLimit: 3)
        #expect(gaps.stored([2, 3, 4, 5], at: now) == [5])
        #expect(gaps.stored([1], at: now).isEmpty)
        #expect(gaps.caughtUpTo == 4)
        #expect(gaps.missing == 5...5)
    }
}
