import ChatDomain
import ChatServer
import ChatStore
import ChatTestSupport
import Foundation
import Testing

/// `chatdir sync`, `read` and `history` as a user runs them, against a reference server in
/// this process (SampleData/server copied into a temp directory).
@Suite(.ownThreads) struct SyncEndToEndTests {
    func newStore(_ directory: TemporaryDirectory, _ server: TestServer, user: String = "alice") throws -> String {
        let path = directory.file(user)
        #expect(try ChatdirProcess.run(["init", "--user", user, "--server", server.url, path]).status == 0)
        return path
    }

    @Test("sync learns conversations and history, delivers the outbox, and never shows or stores the token")
    func syncPass() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        let store = try newStore(directory, server)
        let token = ["CHATDIR_TOKEN": "alice-token"]
        let first = try ChatdirProcess.run(["sync", "--store", store], environment: token)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout == "synced 2 conversations, 7 new messages, 0 sent\n")
        #expect(try ChatdirProcess.run(["send", "--store", store, "dinner", "on my way"]).status == 0)
        let second = try ChatdirProcess.run(["sync", "--store", store], environment: token)
        #expect(second.stdout == "synced 2 conversations, 0 new messages, 1 sent\n")
        let view = try ChatdirProcess.run(["view", "--store", store, "dinner"])
        #expect(view.lines.last?.hasSuffix("alice  on my way  ✓ sent") == true)
        for output in [first.stdout, first.stderr, second.stdout, second.stderr] {
            #expect(!output.contains("alice-token"))
        }
        let files = try snapshotFiles(store)
        #expect(!files.values.contains { String(decoding: $0, as: UTF8.self).contains("alice-token") })
    }

    @Test("a wrong token: exit 77 with a message that does not repeat it; no token: exit 78")
    func tokens() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        let store = try newStore(directory, server)
        let wrong = try ChatdirProcess.run(["sync", "--store", store], environment: ["CHATDIR_TOKEN": "s3cret-guess"])
        #expect(wrong.status == 77)
        #expect(wrong.stderr.contains("the server refused the token (401"))
        #expect(!wrong.stderr.contains("s3cret-guess") && !wrong.stdout.contains("s3cret-guess"))
        #expect(wrong.stdout == "not synced\n", "a refused token syncs nothing, and stdout does not say \"synced\"")
        let none = try ChatdirProcess.run(["sync", "--store", store], environment: ["CHATDIR_TOKEN": ""])
        #expect(none.status == 78)
        #expect(none.stderr.contains("no token: set CHATDIR_TOKEN or pass --token-file FILE"))
    }

    @Test("--token-file must not be readable by others")
    func tokenFile() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        let store = try newStore(directory, server)
        let file = directory.file("token")
        try Data("alice-token\n".utf8).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        let open = try ChatdirProcess.run(
            ["sync", "--store", store, "--token-file", file], environment: ["CHATDIR_TOKEN": ""])
        #expect(open.status == 77)
        #expect(open.stderr.contains("can be read by others (mode 644); run `chmod 600 \(file)` first"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let closed = try ChatdirProcess.run(
            ["sync", "--store", store, "--token-file", file], environment: ["CHATDIR_TOKEN": ""])
        #expect(closed.status == 0, "\(closed.stderr)")
    }

    @Test("nothing listening: sync exits 75, says it did not sync, and the message stays pending")
    func unreachable() throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer(sampleData: true)
        let store = try newStore(directory, server)
        #expect(
            try ChatdirProcess.run(["sync", "--store", store], environment: ["CHATDIR_TOKEN": "alice-token"]).status
                == 0)
        #expect(try ChatdirProcess.run(["send", "--store", store, "dinner", "offline"]).status == 0)
        let result = try ChatdirProcess.run(
            ["sync", "--store", store, "--server", "http://127.0.0.1:9"], environment: ["CHATDIR_TOKEN": "alice-token"])
        #expect(result.status == 75)
        #expect(result.stderr.contains("server unreachable"))
        #expect(result.stdout == "not synced: 1 still pending\n", "\(result.stdout)")
    }

    @Test("read marks a conversation read for the worker to post; bob's sender sees ✓✓ read after sync")
    func readPosition() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        let alice = try newStore(directory, server)
        let bob = try newStore(directory, server, user: "bob")
        #expect(
            try ChatdirProcess.run(["sync", "--store", bob], environment: ["CHATDIR_TOKEN": "bob-token"]).status == 0)
        #expect(try ChatdirProcess.run(["send", "--store", bob, "alice-bob", "read me"]).status == 0)
        #expect(
            try ChatdirProcess.run(["sync", "--store", bob], environment: ["CHATDIR_TOKEN": "bob-token"]).status == 0)
        #expect(
            try ChatdirProcess.run(["sync", "--store", alice], environment: ["CHATDIR_TOKEN": "alice-token"]).status
                == 0)
        let read = try ChatdirProcess.run(["read", "--store", alice, "alice-bob"])
        #expect(read.stdout == "4\n")
        #expect(try ChatdirProcess.run(["read", "--store", alice, "alice-bob", "--up-to", "2"]).stdout == "4\n")
        #expect(
            try ChatdirProcess.run(["sync", "--store", alice], environment: ["CHATDIR_TOKEN": "alice-token"]).status
                == 0)
        #expect(
            try ChatdirProcess.run(["sync", "--store", bob], environment: ["CHATDIR_TOKEN": "bob-token"]).status == 0)
        let view = try ChatdirProcess.run(["view", "--store", bob, "alice-bob"])
        #expect(view.lines.last?.hasSuffix("bob    read me  ✓✓ read") == true, "\(view.stdout)")
    }

    @Test("sync --live: a second worker on the store is refused; SIGTERM finishes and exits 0")
    func liveWorker() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        let store = try newStore(directory, server)
        let (worker, errors) = try ChatdirProcess.startLiveWorker(store: store)
        // Wait for the first catch-up to land in the store.
        waitUntil(timeout: .seconds(20)) {
            FileManager.default.fileExists(atPath: store + "/conversations/dinner/messages/0000000001-0000000100.json")
        }
        let second = try ChatdirProcess.run(
            ["sync", "--live", "--store", store], environment: ["CHATDIR_TOKEN": "alice-token"])
        #expect(second.status == 75)
        #expect(second.stderr.contains("only one sync worker may run per store"))
        // The refusal names the holder and the way out, for a one-pass sync too.
        let pid = worker.processIdentifier
        let once = try ChatdirProcess.run(["sync", "--store", store], environment: ["CHATDIR_TOKEN": "alice-token"])
        for refused in [second, once] {
            #expect(refused.stderr.contains("(pid \(pid): chatdir sync --live --store \(store)"), "\(refused.stderr)")
            #expect(
                refused.stderr.contains(
                    "wait for it to finish, or stop it (`kill \(pid)`, or Ctrl-C where it runs), then run the command again"
                ), "\(refused.stderr)")
        }
        #expect(once.status == 75)
        #expect(try ChatdirProcess.run(["send", "--store", store, "dinner", "while live"]).status == 0)
        waitUntil(timeout: .seconds(20)) {
            (try? FileManager.default.contentsOfDirectory(atPath: store + "/conversations/dinner/outbox").filter {
                !$0.hasPrefix(".")
            }.isEmpty) == true
        }
        kill(worker.processIdentifier, SIGTERM)
        worker.waitUntilExit()
        #expect(worker.terminationStatus == 0)
        #expect(worker.terminationReason == .exit)
        let view = try ChatdirProcess.run(["view", "--store", store, "dinner"])
        #expect(view.lines.last?.contains("while live  ✓") == true, "\(view.stdout)")
        #expect(
            String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).contains(
                "connected to http://127.0.0.1:"))
    }

    /// `chatdir serve` on `port` could not bind it: another process has it.
    struct PortInUse: Error {}

    /// `chatdir serve --data data --port port` in the background, once it printed its ready line.
    static func serve(_ data: String, port: Int) throws -> RunningChatdir {
        let serve = try RunningChatdir(["serve", "--data", data, "--port", String(port)])
        _ = waitUntil(timeout: .seconds(60)) {
            !serve.process.isRunning || serve.output.contains { $0.hasPrefix("ready: ") }
        }
        if serve.output.contains(where: { $0.hasPrefix("ready: ") }) { return serve }
        serve.process.waitUntilExit()
        if serve.process.terminationStatus == 69 { throw PortInUse() }
        Issue.record("chatdir serve did not start: \(serve.errors)")
        throw PortInUse()
    }

    @Test(
        "sync --live: once the server is back, another request's answer ends the live backoff; bob's message comes long before the backoff would have let it"
    )
    func liveBackoffEndsWhenServerAnswers() throws {
        let directory = try TemporaryDirectory()
        let data = try copyStore(packageRoot.appendingPathComponent("SampleData/server"), into: directory, as: "server")
        // Restarted below on the same port: one no other test's connection can take meanwhile.
        var (serve, port): (RunningChatdir?, Int) = try startOnRestartablePort(isAddressInUse: { $0 is PortInUse }) {
            port in
            (try Self.serve(data, port: port), port)
        }
        defer { _ = serve?.interrupt() }
        let alice = directory.file("alice")
        let bob = directory.file("bob")
        for (user, path) in [("alice", alice), ("bob", bob)] {
            #expect(
                try ChatdirProcess.run(["init", "--user", user, "--server", "http://127.0.0.1:\(port)", path]).status
                    == 0)
            #expect(
                try ChatdirProcess.run(["sync", "--store", path], environment: ["CHATDIR_TOKEN": "\(user)-token"])
                    .status == 0)
        }
        // A reconnect wait of 5 to 10 minutes: the test ends long before it would.
        let worker = try RunningChatdir(
            ["sync", "--live", "--store", alice],
            environment: ["CHATDIR_TOKEN": "alice-token", "CHATDIR_RECONNECT_BACKOFF": "600,600"])
        defer { _ = worker.interrupt() }
        #expect(
            waitUntil(timeout: .seconds(60)) { worker.errors.contains { $0.hasSuffix("chatdir sync: caught up") } },
            "\(worker.errors)")

        _ = serve?.interrupt()
        serve = nil
        #expect(
            waitUntil(timeout: .seconds(60)) {
                worker.errors.contains { $0.contains("chatdir sync: reconnecting in ") }
            }, "\(worker.errors)")
        serve = try restartOnSamePort(port, isAddressInUse: { $0 is PortInUse }) { port in
            try Self.serve(data, port: port)
        }

        #expect(try ChatdirProcess.run(["send", "--store", bob, "alice-bob", "are you back?"]).status == 0)
        #expect(
            try ChatdirProcess.run(["sync", "--store", bob], environment: ["CHATDIR_TOKEN": "bob-token"]).status == 0)
        // Alice's outbox goes out at its own pace; its answer tells the live worker the server is back.
        #expect(try ChatdirProcess.run(["send", "--store", alice, "dinner", "back online"]).status == 0)
        let arrived = waitUntil(timeout: .seconds(60)) {
            (try? ChatdirProcess.run(["view", "--store", alice, "alice-bob"]))?.lines.last?.contains("are you back?")
                == true
        }
        #expect(arrived, "\(worker.errors)")
        #expect(
            worker.errors.contains { $0.contains("answered another request: reconnecting now") }, "\(worker.errors)")
        let view = try ChatdirProcess.run(["view", "--store", alice, "dinner"])
        #expect(view.lines.last?.contains("back online  ✓") == true, "\(view.stdout)")
    }

    @Test(
        "a CHATDIR_RECONNECT_BACKOFF that is not two waits in seconds: exit 78, saying what is expected",
        arguments: ["600", "x,30", "30,1", "0,30"])
    func badReconnectBackoff(_ value: String) throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        let store = try newStore(directory, server)
        let result = try ChatdirProcess.run(
            ["sync", "--live", "--store", store],
            environment: ["CHATDIR_TOKEN": "alice-token", "CHATDIR_RECONNECT_BACKOFF": value])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(
            result.stderr
                == "chatdir sync: CHATDIR_RECONNECT_BACKOFF: \"\(value)\" is not valid; expected the first and the longest wait in seconds, like 0.5,30 (at most 86400)\n",
            "\(result.stderr)")
    }

    @Test(
        "a CHATDIR_FIRST_SYNC_HISTORY that is not a count from 0 to a million: exit 78, saying what is expected",
        arguments: ["-1", "ten", "1000001", "1e4"])
    func badFirstSyncHistory(_ value: String) throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        let store = try newStore(directory, server)
        let result = try ChatdirProcess.run(
            ["sync", "--store", store],
            environment: ["CHATDIR_TOKEN": "alice-token", "CHATDIR_FIRST_SYNC_HISTORY": value])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(
            result.stderr
                == "chatdir sync: CHATDIR_FIRST_SYNC_HISTORY: \"\(value)\" is not valid; expected a number of messages from 0 to 1000000, like 10000\n",
            "\(result.stderr)")
    }

    @Test("a message from another user comes in over the live socket and appears in view --follow")
    func liveIntoFollow() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        let alice = try newStore(directory, server)
        let bob = try newStore(directory, server, user: "bob")
        #expect(
            try ChatdirProcess.run(["sync", "--store", alice], environment: ["CHATDIR_TOKEN": "alice-token"]).status
                == 0)
        #expect(
            try ChatdirProcess.run(["sync", "--store", bob], environment: ["CHATDIR_TOKEN": "bob-token"]).status == 0)

        let worker = try RunningChatdir(
            ["sync", "--live", "--store", alice], environment: ["CHATDIR_TOKEN": "alice-token"])
        let follow = try RunningChatdir(["view", "alice-bob", "--follow", "--json", "--store", alice])
        defer {
            _ = follow.interrupt()
            _ = worker.interrupt()
        }
        #expect(waitUntil { follow.output.count == 3 }, "the three stored messages first")
        let aliceID = try UserID("alice")
        #expect(waitUntil { server.server.liveSocketCount(for: aliceID) == 1 })

        #expect(try ChatdirProcess.run(["send", "--store", bob, "alice-bob", "are you there?"]).status == 0)
        #expect(
            try ChatdirProcess.run(["sync", "--store", bob], environment: ["CHATDIR_TOKEN": "bob-token"]).status == 0)
        #expect(waitUntil { follow.output.count == 4 })
        let row = try JSONSerialization.jsonObject(with: Data((follow.output.last ?? "").utf8)) as? [String: Any]
        #expect(row?["text"] as? String == "are you there?")
        #expect(row?["senderId"] as? String == "bob")
        #expect(row?["sequence"] as? Int == 4)
    }
}
