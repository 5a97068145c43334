import ChatDomain
import ChatProtocol
import ChatServer
import ChatStore
import ChatSync
import ChatSystem
import ChatWire
import Foundation

/// Live burst (`--only burst`): a receiver keeps its store with `SyncEngine.runLive` (what
/// `chatdir sync --live` runs) while dave POSTs `count` messages to their conversation. The
/// server runs with `live-hold=count`, so the receiver's socket gets nothing until the last POST
/// is committed and then all `count` events back to back, as a busy conversation's fan-out
/// would bring them. Timed from sending the last POST (the release comes after its commit) to a
/// watcher on the receiver's `messages/` seeing the segment file that holds the last message;
/// the same watcher counts the segment files renamed into place (one per durable write).
enum Burst {
    struct Figures {
        /// Median over the runs: messages per second from the last POST to the last message durable.
        var perSecond: Double
        /// The most segment writes one burst took.
        var segmentWrites: Int
        var runs: Int
    }

    /// The fixture's server must run with `live-hold=count`; one run per burst conversation.
    static func measure(_ fixture: ServerFixture, clientRoot: String, count: Int, runs: Int) async throws -> Figures {
        var rates: [Double] = []
        var writes: [Int] = []
        for run in 0..<min(runs, ServerFixture.burstReceivers.count) {
            let (seconds, segmentWrites) = try await burst(
                fixture, clientPath: clientRoot + "-\(run)", run: run, count: count)
            rates.append(Double(count) / seconds)
            writes.append(segmentWrites)
            Subprocess.removeTree(clientRoot + "-\(run)")
        }
        rates.sort()
        return Figures(perSecond: rates[rates.count / 2], segmentWrites: writes.max() ?? 0, runs: rates.count)
    }

    private static func burst(_ fixture: ServerFixture, clientPath: String, run: Int, count: Int) async throws -> (
        seconds: Double, segmentWrites: Int
    ) {
        let receiver = ServerFixture.burstReceivers[run]
        let conversation = ServerFixture.burstConversation(run)
        let store = try fixture.clientStore(at: clientPath, user: receiver.rawValue)
        let engine = try SyncEngine(
            store: store, server: fixture.address, token: "\(receiver)-token", options: fixture.clientOptions)
        // Posting starts once the catch-up after connecting is over: a message it fetched would
        // be delivered, and that receipt event would take a place in the held burst.
        let caughtUp = Lock(false)
        let worker = Task {
            await engine.runLive(log: { line in if line == "caught up" { caughtUp.withLock { $0 = true } } })
        }
        defer { worker.cancel() }
        let messagesDirectory = store.conversation(conversation).messagesDirectory
        let ready = Stats.now() + 10_000_000_000
        while !caughtUp.withLock({ $0 }) || fixture.server.liveSocketCount(for: receiver) == 0
            || Sys.kind(of: messagesDirectory) != .directory
        {
            guard Stats.now() < ready else {
                throw Subprocess.Failure(description: "burst: \(receiver)'s worker did not connect within 10 s")
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        let watcher = try SegmentWatcher(directory: messagesDirectory)
        defer { watcher.stop() }
        let poster = try KeepAliveClient(port: fixture.server.port, token: "dave-token")
        let last = "burst \(run) last \(UUID().uuidString)"
        watcher.expect(last)
        for index in 0..<(count - 1) {
            let response = try poster.post(conversation: conversation, text: "burst \(run) message \(index)")
            guard response.status == 201 else {
                throw Subprocess.Failure(description: "burst: POST answered \(response.status)")
            }
        }
        let start = Stats.now()
        let response = try poster.post(conversation: conversation, text: last)
        guard response.status == 201 else {
            throw Subprocess.Failure(description: "burst: POST answered \(response.status)")
        }
        guard let seen = await watcher.seen(last, timeout: 60) else {
            let stored =
                (try? store.conversation(conversation).segmentRanges().flatMap {
                    try store.conversation(conversation).readSegment($0)
                }) ?? []
            let missing = Set(1...count).subtracting(stored.map(\.sequence)).sorted()
            throw Subprocess.Failure(
                description:
                    "burst: the last of \(count) messages did not reach \(receiver)'s store within 60 s (it holds \(stored.count), missing \(missing.prefix(10)), last text \(stored.last?.text ?? "-"))"
            )
        }
        // Writes of the same batch after the one holding the last message (an older segment).
        try await Task.sleep(for: .milliseconds(200))
        let stored = try store.conversation(conversation).segmentRanges().reduce(0) {
            $0 + (try store.conversation(conversation).readSegment($1).count)
        }
        guard stored == count else {
            throw Subprocess.Failure(description: "burst: \(receiver)'s store holds \(stored) of \(count) messages")
        }
        worker.cancel()
        _ = await worker.value
        return (Double(seen - start) / 1e9, watcher.renames)
    }
}
