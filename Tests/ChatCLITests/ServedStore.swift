import ChatServer
import ChatTestSupport
import Foundation
import Testing

/// A reference server in this process (a ``TestServer`` on SampleData, refusing texts with REJECT
/// in them) and alice's store on it, synced once; through a ``StallingRelay`` when `relayed`.
/// The store's runtime directory is the test's own.
final class ServedStore {
    let directory: TemporaryDirectory
    private let host: TestServer
    /// The server's data directory.
    var data: String { host.data }
    var server: ChatServer { host.server }
    let store: String
    let runtime: String
    /// Between the store and the server, when asked for.
    let relay: StallingRelay?

    init(relayed: Bool = false) throws {
        directory = try TemporaryDirectory()
        host = try TestServer(faults: "reject-text=REJECT", sampleData: true)
        relay = relayed ? try StallingRelay(to: host.port) : nil
        store = directory.file("alice")
        runtime = directory.file("runtime")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        #expect(
            try ChatdirProcess.run(["init", "--user", "alice", "--server", relay?.url ?? host.url, store]).status == 0)
        #expect(try sync().status == 0)
    }

    deinit {
        relay?.stop()
        server.stop()
    }

    /// The token, and the runtime directory that is this test's.
    var environment: [String: String] { ["XDG_RUNTIME_DIR": runtime, "CHATDIR_TOKEN": "alice-token"] }

    /// `chatdir COMMAND --store STORE ARGUMENTS…` (`arguments` starts with the command).
    func run(_ arguments: [String]) throws -> ChatdirProcess.Result {
        try ChatdirProcess.run(
            Array(arguments.prefix(1)) + ["--store", store] + arguments.dropFirst(), environment: environment)
    }

    func sync() throws -> ChatdirProcess.Result { try run(["sync"]) }

    func cancel(_ arguments: [String]) throws -> ChatdirProcess.Result { try run(["cancel"] + arguments) }

    /// Queues `text` in dinner; returns its client message ID.
    func send(_ text: String) throws -> String {
        let sent = try run(["send", "dinner", text])
        #expect(sent.status == 0, "\(sent.stderr)")
        return sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Outbox files of dinner.
    var outbox: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: store + "/conversations/dinner/outbox")) ?? []).filter {
            !$0.hasPrefix(".") && $0 != "read.json"
        }
    }

    /// How many records of the server's dinner carry `id`.
    func onServer(_ id: String) throws -> Int {
        let messages = data + "/conversations/dinner/messages"
        return try FileManager.default.contentsOfDirectory(atPath: messages).filter { !$0.hasPrefix(".") }.reduce(0) {
            count, name in
            count
                + (try String(contentsOfFile: messages + "/" + name, encoding: .utf8)).components(separatedBy: "\n")
                .filter { $0.contains(id) }.count
        }
    }

    /// `status --json`, parsed.
    func status() throws -> (status: Int32, json: [String: Any], stderr: String) {
        let result = try run(["status", "--json"])
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
        return (result.status, json, result.stderr)
    }

    /// Runs `status --json` until `done` holds for it (60 s at most).
    func waitForStatus(_ done: (Int32, [String: Any]) -> Bool) throws -> (
        status: Int32, json: [String: Any], stderr: String
    ) {
        var last = try status()
        // Each check runs `chatdir status`: every 100 ms, not every few milliseconds.
        try waitUntil(timeout: .seconds(60), checkingEvery: .milliseconds(100)) {
            if done(last.status, last.json) { return true }
            last = try status()
            return false
        }
        return last
    }
}
