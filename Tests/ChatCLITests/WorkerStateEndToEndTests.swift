import ChatTestSupport
import Foundation
import Testing

/// What a person sees when the sync worker cannot do its work, on the screens (tmux) and from
/// `status` and `list`: a conversation stopped on a damaged file, the server gone, a git
/// conflict written while `chat` is open, and where the conversation really begins.
@Suite(.ownThreads, .enabled(if: Tmux.isAvailable, "tmux is not installed (.ci/run installs it)"))
struct WorkerStateEndToEndTests {
    /// dinner's one segment in SampleData/server, once synced: `[` on line 1, sequence 1 on line 2.
    static let segment = "conversations/dinner/messages/0000000001-0000000100.json"

    /// The shell command tmux runs: `chatdir ARGUMENTS --store STORE`, then how it ended.
    func command(_ fixture: ServedStore, _ arguments: [String]) -> String {
        "env TZ=UTC NO_COLOR=1 XDG_RUNTIME_DIR=\(fixture.runtime) \(ChatdirProcess.executable.path) "
            + arguments.joined(separator: " ") + " --store \(fixture.store); echo \"exit status $?\"; sleep 600"
    }

    /// Replaces the file at `path` as an editor or git does: a new file (0600) renamed over it.
    func replace(_ path: String, with text: String) throws {
        let temporary = path + ".edit"
        try #require(
            FileManager.default.createFile(
                atPath: temporary, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]))
        try #require(rename(temporary, path) == 0)
    }

    func startWorker(_ fixture: ServedStore) throws -> TestProcess {
        let (worker, _) = try ChatdirProcess.startLiveWorker(
            store: fixture.store, environment: ["XDG_RUNTIME_DIR": fixture.runtime])
        let connected = try fixture.waitForStatus { _, json in
            (json["worker"] as? [String: Any])?["connection"] as? String == "connected"
        }
        #expect(connected.status == 0, "\(connected.json)")
        return worker
    }

    @Test(
        "a broken quote in a segment: chat, status (exit 75) and list name the file and line; once repaired, all clear")
    func damagedSegment() throws {
        let fixture = try ServedStore()
        let worker = try startWorker(fixture)
        defer {
            worker.interrupt()
            worker.waitUntilExit()
        }
        let tmux = Tmux()
        defer { tmux.shutDown() }
        try tmux.run([
            "new-session", "-d", "-s", "chat", "-x", "200", "-y", "24", command(fixture, ["chat", "dinner"]),
        ])
        #expect(
            try waitUntil { try tmux.pane("chat").contains { $0.contains("sync worker connected") } },
            "\(tmux.screen("chat"))")

        let path = fixture.store + "/" + Self.segment
        let sound = try String(contentsOfFile: path, encoding: .utf8)
        var lines = sound.components(separatedBy: "\n")
        lines[2] = lines[2].replacingOccurrences(of: #""text":""#, with: #""text":"#)
        try replace(path, with: lines.joined(separator: "\n"))
        // The server accepts it; the worker cannot store it as sent in the damaged segment.
        _ = try fixture.send("after the damage")
        let why = Self.segment + ":3: not valid JSON"

        #expect(
            try waitUntil { try tmux.pane("chat").contains { $0.contains("sync stopped for dinner: " + why) } },
            "\(tmux.screen("chat"))")
        let stopped = try fixture.waitForStatus { _, json in
            ((json["conversations"] as? [[String: Any]]) ?? []).contains {
                $0["id"] as? String == "dinner" && $0["stopped"] is String
            }
        }
        #expect(stopped.status == 75, "\(stopped.json)")
        #expect(stopped.json["healthy"] as? Bool == false)
        let text = try fixture.run(["status"])
        #expect(text.status == 75)
        #expect(
            text.lines.contains { $0.hasPrefix("  dinner ") && $0.contains("1 pending; sync stopped: " + why) },
            "\(text.stdout)")
        #expect(text.lines.contains { $0.hasPrefix("  alice-bob ") && !$0.contains("stopped") }, "\(text.stdout)")
        #expect(text.stderr.contains("chatdir status: sync stopped for dinner: " + why), "\(text.stderr)")
        #expect(
            text.stderr.contains("(chatdir check --store \(fixture.store) names every damaged line)"), "\(text.stderr)")
        let list = try fixture.run(["list"])
        #expect(
            list.lines.contains { $0.hasPrefix("dinner ") && $0.contains("sync stopped: " + why) }, "\(list.stdout)")
        #expect(list.lines.contains { $0.hasPrefix("alice-bob ") && !$0.contains("sync stopped") }, "\(list.stdout)")
        let json = try fixture.run(["list", "--json"])
        #expect(
            json.lines.contains { $0.contains(#""id":"dinner""#) && $0.contains(#""stopped":""# + why) },
            "\(json.stdout)")

        // Repaired: the worker's next try stores the message as sent, and every word of it goes.
        try replace(path, with: sound)
        let clear = try fixture.waitForStatus { status, _ in status == 0 }
        #expect(clear.status == 0, "\(clear.json)\n\(clear.stderr)")
        #expect(
            try waitUntil { try !tmux.pane("chat").contains { $0.contains("sync stopped") } }, "\(tmux.screen("chat"))")
        #expect(
            try waitUntil { try tmux.pane("chat").contains { $0.contains("after the damage") && $0.contains("✓") } },
            "\(tmux.screen("chat"))")
        #expect(try !fixture.run(["list"]).stdout.contains("sync stopped"))
    }

    @Test(
        "the server gone: chat, view --follow and list --follow say the worker reconnects, why, and when it tries next")
    func serverGone() throws {
        let fixture = try ServedStore()
        let worker = try startWorker(fixture)
        defer {
            worker.interrupt()
            worker.waitUntilExit()
        }
        let tmux = Tmux()
        defer { tmux.shutDown() }
        let screens = [
            "chat": ["chat", "dinner"], "view": ["view", "dinner", "--follow"], "list": ["list", "--follow"],
        ]
        for (name, arguments) in screens {
            try tmux.run(["new-session", "-d", "-s", name, "-x", "220", "-y", "20", command(fixture, arguments)])
        }
        for name in screens.keys {
            #expect(
                try waitUntil { try tmux.pane(name).contains { $0.contains("sync worker connected") } },
                "\(name): \(tmux.screen(name))")
        }
        fixture.server.stop()
        for name in screens.keys {
            #expect(
                try waitUntil(timeout: .seconds(60)) {
                    try tmux.pane(name).contains {
                        $0.contains("sync worker reconnecting (server unreachable: ") && $0.contains("; next try in ")
                    }
                }, "\(name): \(tmux.screen(name))")
        }
    }

    @Test("a worker that ends on a refused token: view --follow says so and why, and status names it")
    func tokenRefused() throws {
        let fixture = try ServedStore()
        let tmux = Tmux()
        defer { tmux.shutDown() }
        try tmux.run([
            "new-session", "-d", "-s", "view", "-x", "220", "-y", "20",
            command(fixture, ["view", "dinner", "--follow"]),
        ])
        #expect(
            try waitUntil { try tmux.pane("view").contains { $0.contains("no sync worker running") } },
            "\(tmux.screen("view"))")
        let refused = try ChatdirProcess.run(
            ["sync", "--live", "--store", fixture.store],
            environment: ["XDG_RUNTIME_DIR": fixture.runtime, "CHATDIR_TOKEN": "wrong-token"])
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(
            try waitUntil {
                try tmux.pane("view").contains {
                    $0.contains("no sync worker running: the last one stopped: the server refused the token (401")
                }
            }, "\(tmux.screen("view"))")
        let status = try fixture.run(["status"])
        #expect(
            status.lines.first?.contains("stopped ") == true
                && status.lines.first?.contains("(the server refused the token (401") == true, "\(status.stdout)")
    }

    @Test(
        "git conflict markers written into a segment while chat is open: the rows stay and the screen names the file and what to do"
    )
    func conflictWhileOpen() throws {
        let fixture = try ServedStore()
        let tmux = Tmux()
        defer { tmux.shutDown() }
        try tmux.run([
            "new-session", "-d", "-s", "chat", "-x", "200", "-y", "24", command(fixture, ["chat", "dinner"]),
        ])
        #expect(
            try waitUntil { try tmux.pane("chat").contains { $0.contains("Booked: Friday 20:00") } },
            "\(tmux.screen("chat"))")

        let path = fixture.store + "/" + Self.segment
        var lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
        lines.insert(
            contentsOf: [
                "<<<<<<< HEAD", lines[3], "=======",
                lines[3].replacingOccurrences(of: #""text":""#, with: #""text":"theirs "#), ">>>>>>> theirs",
            ], at: 3)
        lines.remove(at: 4 + 4)
        // As git writes a file it merged: the old one removed, a new one created, then written.
        // The screen is told of the empty file first, then of what was written; the rows it
        // held stay through both, beside the problem.
        try FileManager.default.removeItem(atPath: path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        try #require(descriptor >= 0)
        #expect(
            try waitUntil { try tmux.pane("chat").contains { $0.contains(Self.segment + ":1: the file is empty") } },
            "\(tmux.screen("chat"))")
        #expect(try tmux.pane("chat").contains { $0.contains("Booked: Friday 20:00") }, "\(tmux.screen("chat"))")
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: Data(lines.joined(separator: "\n").utf8))
        try handle.close()

        #expect(
            try waitUntil {
                try tmux.pane("chat").contains { $0.contains("unresolved git merge conflict in " + Self.segment) }
            }, "\(tmux.screen("chat"))")
        #expect(try tmux.pane("chat").contains { $0.contains("Booked: Friday 20:00") }, "\(tmux.screen("chat"))")
    }

    @Test(
        "\"beginning of the conversation\" only above sequence 1: not above the newest rows of 82, nor after a resize; view --follow says it the same way"
    )
    func beginningOnlyAtTheBeginning() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let store = directory.file("store")
        #expect(try ChatdirProcess.run(["seed", store, "--conversations", "1", "--messages", "82"]).status == 0)
        let first = try ChatdirProcess.run(["view", "c1", "--store", store, "--json", "--before", "2"])
        let firstText = try #require(
            ((try JSONSerialization.jsonObject(with: Data(first.stdout.utf8))) as? [String: Any])?["text"] as? String)
        let runtime = directory.file("run")
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let tmux = Tmux()
        defer { tmux.shutDown() }
        let run = { (arguments: String) in
            "env TZ=UTC NO_COLOR=1 XDG_RUNTIME_DIR=\(runtime) \(ChatdirProcess.executable.path) \(arguments) --store \(store); sleep 600"
        }
        try tmux.run(["new-session", "-d", "-s", "chat", "-x", "100", "-y", "20", run("chat c1")])
        #expect(
            try waitUntil { try tmux.pane("chat").contains { $0.contains("no sync worker running") } },
            "\(tmux.screen("chat"))")
        #expect(try tmux.pane("chat")[1] == "  ↑ older messages", "\(tmux.screen("chat"))")
        try tmux.run(["resize-window", "-t", "chat", "-x", "100", "-y", "12"])
        // The capture ends with a newline: 12 lines and an empty string after them.
        #expect(try waitUntil { try tmux.pane("chat").count <= 13 }, "\(tmux.screen("chat"))")
        #expect(try tmux.pane("chat")[1] == "  ↑ older messages", "\(tmux.screen("chat"))")
        #expect(
            try !tmux.pane("chat").contains { $0.contains("beginning of the conversation") }, "\(tmux.screen("chat"))")
        // Up to the top: there, and only there, the conversation begins.
        #expect(
            try waitUntil {
                try tmux.run(["send-keys", "-t", "chat", "PageUp"])
                return try tmux.pane("chat")[1] == "  beginning of the conversation"
            }, "\(tmux.screen("chat"))")
        #expect(try tmux.pane("chat").contains { $0.contains(String(firstText.prefix(20))) }, "\(tmux.screen("chat"))")

        try tmux.run([
            "new-session", "-d", "-s", "follow", "-x", "100", "-y", "12", run("view c1 --follow --limit 100"),
        ])
        #expect(
            try waitUntil { try tmux.pane("follow").contains { $0.contains("no sync worker running") } },
            "\(tmux.screen("follow"))")
        #expect(
            try tmux.pane("follow")[1].hasPrefix("  older messages: chatdir view --store /"), "\(tmux.screen("follow"))"
        )
        #expect(
            try !tmux.pane("follow").contains {
                $0.contains("beginning of the conversation") || $0.contains("start of the conversation")
            })
        try tmux.run(["resize-window", "-t", "follow", "-x", "100", "-y", "120"])
        #expect(
            try waitUntil { try tmux.pane("follow")[1] == "  beginning of the conversation" },
            "\(tmux.screen("follow"))")
    }
}
