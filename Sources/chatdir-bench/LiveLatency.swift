import ChatDomain
import ChatServer
import ChatStore
import ChatSync
import ChatSystem

/// Live latency: dave POSTs through APIClient; erin's store is kept by `SyncEngine.runLive`
/// (what `chatdir sync --live` runs). For each message: from the 201 reaching dave (the server
/// accepted it durably) to a watcher on erin's `messages/` seeing the segment file that holds it
/// (erin's store has it durably: the rename comes after the fsync). One message in flight.
enum LiveLatency {
    struct Figures {
        /// 201 received → watcher saw it, ms.
        var p50: Double
        var p99: Double
        /// POST sent → watcher saw it, ms.
        var fromSendP50: Double
        var fromSendP99: Double
        var count: Int
    }

    static func measure(_ fixture: ServerFixture, clientPath: String, count: Int, warmUp: Int = 20) async throws
        -> Figures
    {
        let live = ServerFixture.id("live")
        let erin = try fixture.clientStore(at: clientPath, user: "erin")
        let engine = try SyncEngine(
            store: erin, server: fixture.address, token: "erin-token", options: fixture.clientOptions)
        let worker = Task { await engine.runLive(log: { _ in }) }
        defer { worker.cancel() }
        let messagesDirectory = erin.conversation(live).messagesDirectory
        let ready = Stats.now() + 10_000_000_000
        while fixture.server.liveSocketCount(for: ServerFixture.user("erin")) == 0
            || Sys.kind(of: messagesDirectory) != .directory
        {
            guard Stats.now() < ready else {
                throw Subprocess.Failure(description: "live: erin's worker did not connect within 10 s")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        let watcher = try SegmentWatcher(directory: messagesDirectory)
        defer { watcher.stop() }
        let api = APIClient(server: fixture.address, token: "dave-token", caFile: fixture.caFile)
        var fromAccept: [Double] = []
        var fromSend: [Double] = []
        for index in 0..<(warmUp + count) {
            let id = ClientMessageID.random()
            watcher.expect(id.rawValue)
            let sent = Stats.now()
            _ = try await api.post(live, clientMessageID: id, text: "live \(index)")
            let accepted = Stats.now()
            guard let seen = await watcher.seen(id.rawValue, timeout: 5) else {
                throw Subprocess.Failure(description: "live: message \(index) did not reach erin's store within 5 s")
            }
            if index < warmUp { continue } // the first ones also wait for the catch-up after connecting
            fromAccept.append((Double(seen) - Double(accepted)) / 1e6)
            fromSend.append((Double(seen) - Double(sent)) / 1e6)
        }
        worker.cancel()
        _ = await worker.value
        let accept = Stats.p50p99(fromAccept)
        let send = Stats.p50p99(fromSend)
        return Figures(p50: accept.p50, p99: accept.p99, fromSendP50: send.p50, fromSendP99: send.p99, count: count)
    }
}
