import ChatDomain
import ChatServer
import ChatStore
import ChatTestSupport
import Foundation
import Testing

/// The outbox keeps its promises whatever the clock and however many processes run:
/// `send` order is queue order, `retry` never leaves two files for one ID, and `read` wishes
/// stay within the stored messages.
@Suite(.ownThreads) struct OutboxTrustEndToEndTests {
    /// libfaketime is preloaded into the child; a sanitized `chatdir` hangs in its runtime's
    /// start-up under that preload (both wrap the clock calls), so these tests run in a plain
    /// build only, which the test knows by itself (``sanitizer``). The ordinal rule itself is
    /// covered under the sanitizers too, with an injected clock (`OutboxOrderTests`).
    static var faketimeAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: "/usr/bin/faketime") && sanitizer == nil
    }

    /// Runs `chatdir arguments…` under `faketime spec` (libfaketime moves the clock of that
    /// process only), killed and failing the test if it runs two minutes.
    func runAtFakeTime(_ spec: String, _ arguments: [String], environment: [String: String] = [:]) throws
        -> ChatdirProcess.Result
    {
        var env = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        env["TZ"] = "UTC"
        env["NO_COLOR"] = "1"
        let result = try spawnAndWait(
            "/usr/bin/faketime", ["-f", spec, ChatdirProcess.executable.path] + arguments, environment: env,
            deadline: .seconds(120))
        if result.timedOut {
            throw DeadlineExceeded(
                command: "faketime -f \(spec) chatdir \(arguments.joined(separator: " "))", deadline: .seconds(120),
                stderr: String(decoding: result.stderr, as: UTF8.self))
        }
        return ChatdirProcess.Result(
            status: result.status, stdout: String(decoding: result.stdout, as: UTF8.self),
            stderr: String(decoding: result.stderr, as: UTF8.self))
    }

    func pendingTexts(_ store: String, _ conversation: String) throws -> [String] {
        try ChatdirProcess.run(["view", "--store", store, conversation, "--json"]).lines.compactMap { line in
            let row = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return row?["status"] as? String == "pending" ? row?["text"] as? String : nil
        }
    }

    @Test(
        "send A, the clock stepped back an hour, send B: B is queued after A and the server assigns A first",
        .enabled(if: faketimeAvailable, "faketime is not installed (.ci/run installs it), or the build is sanitized"))
    func clockSteppedBack() throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer(sampleData: true)
        defer { server.stop() }
        let store = directory.file("alice")
        #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", server.url, store]).status == 0)
        let token = ["CHATDIR_TOKEN": "alice-token"]
        #expect(try ChatdirProcess.run(["sync", "--store", store], environment: token).status == 0)

        #expect(try ChatdirProcess.run(["send", "--store", store, "dinner", "A"]).status == 0)
        let back = try runAtFakeTime("-1h", ["send", "--store", store, "dinner", "B"])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(try pendingTexts(store, "dinner") == ["A", "B"])

        let synced = try ChatdirProcess.run(["sync", "--store", store], environment: token)
        #expect(synced.status == 0, "\(synced.stderr)")
        let rows = try ChatdirProcess.run(["view", "--store", store, "dinner", "--json"]).lines.compactMap { line in
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
        let sequence = { (text: String) in rows.first { $0["text"] as? String == text }?["sequence"] as? Int }
        let a = try #require(sequence("A"))
        let b = try #require(sequence("B"))
        #expect(a < b, "the server assigned A \(a) and B \(b)")
    }

    @Test(
        "send with the clock before 1970 queues the message instead of crashing",
        .enabled(if: faketimeAvailable, "faketime is not installed (.ci/run installs it), or the build is sanitized"))
    func clockBefore1970() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store")
        #expect(try ChatdirProcess.run(["seed", store, "--conversations", "1", "--messages", "3"]).status == 0)
        #expect(try ChatdirProcess.run(["send", "--store", store, "c1", "now"]).status == 0)
        let old = try runAtFakeTime("@1969-12-31 23:00:00", ["send", "--store", store, "c1", "before 1970"])
        #expect(old.status == 0, "\(old.stderr)")
        #expect(try pendingTexts(store, "c1") == ["now", "before 1970"])
        #expect(try ChatdirProcess.run(["check", store]).status == 0)
    }

    @Test(
        "sync with the clock before 1970 ends as a sync with no server does (75), instead of trapping on the monotonic clock",
        .enabled(if: faketimeAvailable, "faketime is not installed (.ci/run installs it), or the build is sanitized"))
    func syncBefore1970() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store")
        #expect(try ChatdirProcess.run(["seed", store, "--conversations", "1", "--messages", "3"]).status == 0)
        #expect(try ChatdirProcess.run(["send", "--store", store, "c1", "waits"]).status == 0)
        let synced = try runAtFakeTime(
            "@1969-12-31 23:00:00", ["sync", "--store", store, "--server", "http://127.0.0.1:9"],
            environment: ["CHATDIR_TOKEN": "alice-token"])
        #expect(synced.status == 75, "\(synced.stderr)")
        #expect(try pendingTexts(store, "c1") == ["waits"])
    }

    @Test(
        "two retries of one failed message at once, 20 rounds: one file per ID and a clean check every round; the loser says it is already queued"
    )
    func concurrentRetries() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store")
        #expect(
            try ChatdirProcess.run(["seed", store, "--conversations", "1", "--messages", "3", "--failed", "20"]).status
                == 0)
        let failed = try ChatdirProcess.run(["view", "--store", store, "c1", "--json"]).lines.compactMap {
            line -> String? in
            let row = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return row?["status"] as? String == "failed" ? row?["clientMessageId"] as? String : nil
        }
        try #require(failed.count == 20)
        for (round, id) in failed.enumerated() {
            let processes = try (0..<2).map { _ -> (TestProcess, Pipe, Pipe) in
                let out = Pipe()
                let err = Pipe()
                return (
                    try ChatdirProcess.start(
                        ["retry", "--store", store, "c1", id], standardInput: nil, standardOutput: out,
                        standardError: err), out, err
                )
            }
            var printed: [String] = []
            var said: [String] = []
            for (process, out, err) in processes {
                printed.append(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
                said.append(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
                process.waitUntilExit()
                #expect(process.terminationStatus == 0, "round \(round): \(said.last ?? "")")
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: store + "/conversations/c1/outbox").filter {
                $0.contains(id)
            }
            #expect(files.count == 1, "round \(round): \(files)")
            #expect(printed.filter { $0 == id + "\n" }.count == 1, "round \(round): one retry queued it: \(printed)")
            #expect(
                said.filter { $0.contains("already queued") }.count == 1, "round \(round): the other says so: \(said)")
            let check = try ChatdirProcess.run(["check", store])
            #expect(check.status == 0, "round \(round): \(check.stdout)")
        }
    }

    @Test("read --up-to past the newest stored message is refused with exit 65, naming the newest; nothing is written")
    func readPastNewest() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store")
        #expect(try ChatdirProcess.run(["seed", store, "--conversations", "1", "--messages", "3"]).status == 0)
        let refused = try ChatdirProcess.run(["read", "--store", store, "c1", "--up-to", "99999"])
        #expect(refused.status == 65)
        #expect(
            refused.stderr.contains("99999") && refused.stderr.contains("newest stored message of c1 is 3"),
            "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: store + "/conversations/c1/outbox/read.json"))
        let accepted = try ChatdirProcess.run(["read", "--store", store, "c1", "--up-to", "3"])
        #expect(accepted.status == 0 && accepted.stdout == "3\n", "\(accepted.stderr)")
    }
}
