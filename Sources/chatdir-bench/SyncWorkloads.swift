import ChatDomain
import ChatStore
import ChatSync

/// Sync figures against the in-process reference server, through ChatSync as `chatdir sync`
/// runs it: catch-up of a long history into a fresh store, and a queued outbox drained.
enum SyncWorkloads {
    /// A fresh store for bob catches up `expected` messages of c1 in one `syncOnce` (discovery,
    /// pipelined pages of 500, one durable commit per page, receipts); messages per second.
    static func catchUp(_ fixture: ServerFixture, clientPath: String, expected: Int) async throws -> (
        perSecond: Double, seconds: Double
    ) {
        let (report, seconds) = try await firstSync(fixture, clientPath: clientPath)
        guard report.newMessages == expected, report.problems.isEmpty else {
            throw Subprocess.Failure(
                description: "catch-up stored \(report.newMessages) of \(expected) messages: \(report.problems)")
        }
        return (Double(expected) / seconds, seconds)
    }

    /// A fresh store for bob syncs `count` one-message conversations in one `syncOnce` (the
    /// list, then for each: its page, its receipts, a delivered position where the server is
    /// behind); seconds, and conversations per second.
    static func manyConversations(_ fixture: ServerFixture, clientPath: String, count: Int) async throws -> (
        seconds: Double, perSecond: Double
    ) {
        let (report, seconds) = try await firstSync(fixture, clientPath: clientPath)
        guard report.conversations == count, report.newMessages == count, report.problems.isEmpty else {
            throw Subprocess.Failure(
                description:
                    "the first sync of \(count) conversations stored \(report.newMessages) messages of \(report.conversations) conversations: \(report.problems.prefix(3))"
            )
        }
        return (seconds, Double(count) / seconds)
    }

    /// One timed `syncOnce` of a fresh store for bob; its report and seconds.
    private static func firstSync(_ fixture: ServerFixture, clientPath: String) async throws -> (
        SyncEngine.Report, Double
    ) {
        let store = try fixture.clientStore(at: clientPath, user: "bob")
        // A throughput figure, not a trust check: the 30 s pass budget must not cut a long sync.
        var options = fixture.clientOptions
        options.passBudget = .seconds(3600)
        let engine = try SyncEngine(store: store, server: fixture.address, token: "bob-token", options: options)
        let start = Stats.now()
        let report = await engine.syncOnce()
        return (report, Double(Stats.now() - start) / 1e9)
    }

    /// carol queues `count` messages offline (Outbox.enqueue), then one `syncOnce` delivers
    /// them (one POST each, accepted ones committed 64 at a time); messages per second.
    static func drain(_ fixture: ServerFixture, clientPath: String, count: Int) async throws -> (
        perSecond: Double, seconds: Double
    ) {
        let store = try fixture.clientStore(at: clientPath, user: "carol")
        let engine = try SyncEngine(
            store: store, server: fixture.address, token: "carol-token", options: fixture.clientOptions)
        let first = await engine.syncOnce() // learns the conversation, as `send` needs
        guard first.problems.isEmpty else {
            throw Subprocess.Failure(description: "drain: first sync failed: \(first.problems)")
        }
        let outbox = Outbox(store.conversation(ServerFixture.id("drain")))
        for index in 0..<count { try outbox.enqueue("queued \(index)") }
        let start = Stats.now()
        let report = await engine.syncOnce()
        let seconds = Double(Stats.now() - start) / 1e9
        guard report.sent == count, report.problems.isEmpty else {
            throw Subprocess.Failure(description: "drain sent \(report.sent) of \(count): \(report.problems)")
        }
        return (Double(count) / seconds, seconds)
    }

    /// `count` fresh clients each open a connection (over TLS: a full handshake, verified) and
    /// ask `GET /v1/me`; milliseconds per connect + request, p50 and p99.
    static func connect(_ fixture: ServerFixture, count: Int) async throws -> (p50: Double, p99: Double) {
        var samples: [Double] = []
        for _ in 0..<count {
            let client = APIClient(server: fixture.address, token: "bob-token", caFile: fixture.caFile)
            let start = Stats.now()
            _ = try await client.me()
            samples.append(Double(Stats.now() - start) / 1e6)
        }
        samples.sort()
        func at(_ fraction: Double) -> Double {
            samples[min(samples.count - 1, Int(Double(samples.count - 1) * fraction))]
        }
        return (at(0.5), at(0.99))
    }
}
