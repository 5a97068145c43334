import ChatDomain
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

/// A `chatdir` child that keeps running (`--follow`, `watch`): its stdout lines as they come.
final class RunningChatdir: Sendable {
    let process: TestProcess
    private let lines = LineBuffer()
    private let errorLines = LineBuffer()
    private let errorsEnded = Lock(false)

    final class LineBuffer: Sendable {
        private let storage = Lock<[String]>([])
        func append(_ line: String) { storage.withLock { $0.append(line) } }
        var all: [String] { storage.withLock { $0 } }
    }

    /// `launcher` runs chatdir through another program: its first word is the program, the rest
    /// its arguments before chatdir's path (`unshare -U -r sh -c …`).
    init(_ arguments: [String], environment: [String: String] = [:], launcher: [String] = []) throws {
        let stdout = Pipe()
        let stderr = Pipe()
        process = try ChatdirProcess.start(
            arguments, environment: environment, launcher: launcher, standardOutput: stdout, standardError: stderr)
        let lines = self.lines
        let errorLines = self.errorLines
        let errorsEnded = self.errorsEnded
        readLines(of: stdout.fileHandleForReading) { lines.append($0) }
        readLines(
            of: stderr.fileHandleForReading, { errorLines.append($0) }, ended: { errorsEnded.withLock { $0 = true } })
    }

    var output: [String] { lines.all }
    /// Its stderr lines so far.
    var errors: [String] { errorLines.all }
    /// Whether its stderr reached its end (every line is in ``errors``).
    var errorsComplete: Bool { errorsEnded.withLock { $0 } }

    /// Sends SIGINT and waits for the exit status.
    func interrupt() -> Int32 {
        process.interrupt()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Drives a real terminal: a tmux server on its own socket, so parallel runs never meet.
struct Tmux {
    let socket = "chatdir-test-\(UUID().uuidString.prefix(8))"

    /// Runs a tmux client command with posix_spawn and waitpid, closing every descriptor above
    /// stderr in the child: the tmux server it may start must not inherit this process's pipes
    /// (Foundation's `Process` waits until every copy of its exit-watching descriptor is closed,
    /// which a daemon never does).
    @discardableResult
    func run(_ arguments: [String], capture: Bool = false) throws -> String {
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString).out")
            .path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(
            &actions, 1, capture ? outputPath : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // `posix_spawn_file_actions_addclosefrom_np` does not import; bash closes them instead.
        let closeAndRun =
            "for fd in $(ls /proc/$$/fd); do [ \"$fd\" -gt 2 ] && eval \"exec $fd>&-\"; done; exec tmux \"$@\""
        let argv: [UnsafeMutablePointer<CChar>?] =
            (["bash", "-c", closeAndRun, "tmux", "-L", socket] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        // The test runner ignores SIGHUP, SIGINT and SIGTERM while a test watches signals, and
        // an ignored signal stays ignored across exec: a tmux server started with them ignored
        // outlives `kill-server` (its SIGHUP does nothing) with its panes' processes. Start it
        // with every signal at its default and none blocked.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, "bash", &actions, &attributes, argv, environ)
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: result) ?? .EIO) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return capture ? ((try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? "") : ""
    }

    /// Ends the panes' programs with SIGTERM while their terminals still exist, waits for them
    /// (up to 20 s), then stops the server. `kill-server` alone hangs up every pane at once:
    /// its shell dies, and a chatdir left in an orphaned process group with its pseudo-terminal
    /// gone cannot finish under LeakSanitizer (its exit-time leak check stops every thread
    /// with ptrace and never sees them stop), so it spun at full speed for the rest of an
    /// AddressSanitizer CI run. Only the shells' children are signalled: a shell dying first
    /// would orphan them the same way.
    func shutDown() {
        let shells = ((try? run(["list-panes", "-a", "-F", "#{pane_pid}"], capture: true)) ?? "")
            .split(separator: "\n").compactMap { pid_t($0.trimmingCharacters(in: .whitespaces)) }
        var programs: [pid_t] = []
        for shell in shells {
            let children = Self.processes(inGroup: shell).filter { $0 != shell }
            // A pane whose command is the program itself (no shell around it) is signalled whole.
            programs += children.isEmpty ? [shell] : children
        }
        for pid in programs { kill(pid, SIGTERM) }
        _ = waitUntil(timeout: .seconds(20)) { programs.allSatisfy { kill($0, 0) != 0 } }
        _ = try? run(["kill-server"])
    }

    /// Every process whose process group is `group` (field 5 of /proc/PID/stat).
    private static func processes(inGroup group: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry),
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            // After the command name in parentheses: state, ppid, pgrp.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 2 && pid_t(fields[2]) == group ? pid : nil
        }
    }

    /// The visible rows of session `target`'s pane, as text.
    func pane(_ target: String = "follow") throws -> [String] {
        try run(["capture-pane", "-p", "-t", target], capture: true).split(
            separator: "\n", omittingEmptySubsequences: false
        ).map(String.init)
    }

    /// A tmux format evaluated for session `target` (`#{alternate_on}`, `#{cursor_flag}`…).
    func format(_ format: String, _ target: String) throws -> String {
        try run(["display-message", "-p", "-t", target, format], capture: true).trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    static var isAvailable: Bool {
        ["/usr/bin/tmux", "/usr/local/bin/tmux", "/bin/tmux"].contains {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}

@Suite(.ownThreads) struct FollowEndToEndTests {
    /// A seeded store: c1 with bob, five messages, positions loaded (alice's 4 is "sent").
    func seededStore(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("store")
        let seeded = try ChatdirProcess.run(["seed", path, "--conversations", "1", "--messages", "5"])
        try #require(seeded.status == 0, "\(seeded.stderr)")
        return path
    }

    @Test(
        "view --follow in tmux: a sent message appears with a clock, a tick changes in place, Ctrl-C exits 0",
        .enabled(if: Tmux.isAvailable, "tmux is not installed (.ci/run installs it)"))
    func terminal() throws {
        let directory = try TemporaryDirectory()
        let store = try seededStore(in: directory)
        let tmux = Tmux()
        defer { tmux.shutDown() }
        let command =
            "TZ=UTC NO_COLOR=1 '\(ChatdirProcess.executable.path)' view c1 --follow --store '\(store)'; echo \"exit status $?\"; sleep 30"
        try tmux.run(["new-session", "-d", "-s", "follow", "-x", "120", "-y", "20", command])
        #expect(try waitUntil { try tmux.pane().contains { $0.contains("✓ sent") } })

        let sent = try ChatdirProcess.run(["send", "--store", store, "c1", "hello"])
        #expect(sent.status == 0)
        #expect(try waitUntil { try tmux.pane().contains { $0.contains("alice  hello  ◷ pending") } })

        let before = try tmux.pane()
        let sentLine = try #require(before.firstIndex { $0.contains("✓ sent") })
        let writer = try StoreWriter(store: try Store.open(at: store))
        try writer.mergePositions(
            Positions([try UserID("bob"): MemberPosition(deliveredUpTo: 5, readUpTo: 5)]), in: try ConversationID("c1"))
        #expect(try waitUntil { try tmux.pane()[sentLine].contains("✓✓ read") })
        let after = try tmux.pane()
        #expect(
            after[sentLine].replacingOccurrences(of: "✓✓ read", with: "✓ sent") == before[sentLine],
            "the tick changed where the row stands")
        #expect(after.count == before.count)

        try tmux.run(["send-keys", "-t", "follow", "C-c"])
        #expect(try waitUntil { try tmux.pane().contains("exit status 0") })
    }

    @Test(
        "view --follow --json into a pipe prints exactly one line per new message, in order, across 1,000 written by another process"
    )
    func pipe() throws {
        let directory = try TemporaryDirectory()
        let store = try seededStore(in: directory)
        let follow = try RunningChatdir(["view", "c1", "--follow", "--json", "--limit", "1", "--store", store])
        #expect(waitUntil { follow.output.count == 1 }, "the newest stored row first")

        let writer = try StoreWriter(store: try Store.open(at: store))
        let c1 = try ConversationID("c1")
        let bob = try UserID("bob")
        for sequence in 6...1005 {
            try writer.save(
                [
                    Message(
                        sequence: sequence, clientMessageID: .random(), senderID: bob, text: "n\(sequence)",
                        sentAt: "2026-11-29T10:00:00.000Z")
                ], in: c1)
        }
        #expect(waitUntil(timeout: .seconds(60)) { follow.output.count >= 1001 })
        let status = follow.interrupt()
        #expect(status == 0)
        let sequences = try follow.output.dropFirst().map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["sequence"] as? Int
        }
        #expect(sequences == Array(6...1005))
    }

    @Test(
        "list --follow into a pipe prints each invitation the sync worker writes down once, as text and as JSON"
    )
    func listFollowInvitations() throws {
        let directory = try TemporaryDirectory()
        let store = try seededStore(in: directory)
        let text = try RunningChatdir(["list", "--follow", "--store", store])
        let json = try RunningChatdir(["list", "--follow", "--json", "--store", store])
        #expect(waitUntil { text.output.count == 1 && json.output.count == 1 }, "the conversation first")

        let picnic = Invitation(room: "!picnic:example.org", name: "Picnic", inviter: "@bob:example.org")
        try InvitationsFile.write([picnic], storeRoot: store)
        #expect(
            waitUntil {
                text.output.contains(
                    "invited to \"Picnic\" (!picnic:example.org) by @bob:example.org; join: chatdir join --store \(store) '!picnic:example.org'"
                )
            }, "\(text.output)")
        #expect(
            waitUntil {
                json.output.contains(
                    #"{"invitation":{"inviter":"@bob:example.org","name":"Picnic","room":"!picnic:example.org"}}"#)
            }, "\(json.output)")

        // A second invitation: only it is printed; the first is not said again.
        let lunch = Invitation(room: "!lunch:example.org", name: nil, inviter: nil)
        try InvitationsFile.write([picnic, lunch], storeRoot: store)
        #expect(waitUntil { json.output.contains(#"{"invitation":{"room":"!lunch:example.org"}}"#) }, "\(json.output)")
        #expect(waitUntil { text.output.contains { $0.contains("!lunch:example.org") } }, "\(text.output)")
        #expect(text.interrupt() == 0 && json.interrupt() == 0)
        #expect(json.output.count == 3 && text.output.count == 3, "\(json.output) \(text.output)")
    }

    @Test(
        "list --follow in tmux: an invitation the sync worker writes down is drawn under the rooms, and goes when the file does",
        .enabled(if: Tmux.isAvailable, "tmux is not installed (.ci/run installs it)"))
    func listFollowInvitationsOnScreen() throws {
        let directory = try TemporaryDirectory()
        let store = try seededStore(in: directory)
        let tmux = Tmux()
        defer { tmux.shutDown() }
        let command =
            "TZ=UTC NO_COLOR=1 '\(ChatdirProcess.executable.path)' list --follow --store '\(store)'; echo \"exit status $?\"; sleep 30"
        try tmux.run(["new-session", "-d", "-s", "follow", "-x", "160", "-y", "10", command])
        #expect(try waitUntil { try tmux.pane().contains { $0.hasPrefix("c1") } }, "\((try? tmux.pane()) ?? [])")

        try InvitationsFile.write(
            [Invitation(room: "!picnic:example.org", name: "Picnic", inviter: "@bob:example.org")], storeRoot: store)
        #expect(
            try waitUntil {
                let pane = try tmux.pane()
                guard let room = pane.firstIndex(where: { $0.hasPrefix("c1") }),
                    let invitation = pane.firstIndex(where: {
                        $0.hasPrefix("invited to \"Picnic\" (!picnic:example.org) by @bob:example.org; join: ")
                    })
                else { return false }
                return invitation == room + 1
            }, "\((try? tmux.pane()) ?? [])")

        try InvitationsFile.write([], storeRoot: store)
        #expect(
            try waitUntil { try !tmux.pane().contains { $0.contains("invited to") } }, "\((try? tmux.pane()) ?? [])")
        try tmux.run(["send-keys", "-t", "follow", "C-c"])
        #expect(try waitUntil { try tmux.pane().contains("exit status 0") })
    }

    @Test("watch prints a ready line, then one JSON line per change naming the conversation and the ID")
    func watch() throws {
        let directory = try TemporaryDirectory()
        let store = try seededStore(in: directory)
        let watch = try RunningChatdir(["watch", "c1", "--store", store])
        #expect(waitUntil { watch.output.first == #"{"event":"watching","conversationId":"c1"}"# })
        let sent = try ChatdirProcess.run(["send", "--store", store, "c1", "ping"])
        let id = sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(waitUntil { watch.output.count >= 2 })
        #expect(watch.interrupt() == 0)
        let event = try #require(try JSONSerialization.jsonObject(with: Data(watch.output[1].utf8)) as? [String: Any])
        #expect(event["event"] as? String == "outbox-added")
        #expect(event["conversationId"] as? String == "c1")
        #expect(event["clientMessageId"] as? String == id)
        #expect(event["text"] as? String == "ping")
    }

    @Test(
        "view --follow in tmux: rows of CJK text cut at the edge stay on their line, hexagrams, trigrams and circled numbers (two cells in the terminal) among them",
        .enabled(if: Tmux.isAvailable, "tmux is not installed (.ci/run installs it)"), arguments: [57, 58, 59, 60, 61])
    func wideCharactersAtTheEdge(_ columns: Int) throws {
        let directory = try TemporaryDirectory()
        let store = try seededStore(in: directory)
        let writer = try StoreWriter(store: try Store.open(at: store))
        let cjk = "日本語のテキストはとても長いので䷀䷁䷂䷃䷄この行は画面の幅を超えてしまうでしょうか"
        let texts = [
            cjk, "x" + cjk, "xx" + cjk, String(repeating: "☰☱⚊⚋㉈", count: 12), "x" + String(repeating: "䷀", count: 40),
        ]
        let bob = try UserID("bob")
        for (index, text) in texts.enumerated() {
            try writer.save(
                [
                    Message(
                        sequence: 6 + index, clientMessageID: .random(), senderID: bob, text: text,
                        sentAt: "2026-11-29T10:0\(index):00.000Z")
                ], in: try ConversationID("c1"))
        }
        let tmux = Tmux()
        defer { tmux.shutDown() }
        let command =
            "TZ=UTC NO_COLOR=1 '\(ChatdirProcess.executable.path)' view c1 --follow --store '\(store)'; sleep 30"
        try tmux.run(["new-session", "-d", "-s", "follow", "-x", "\(columns)", "-y", "20", command])
        let shown = try waitUntil { try tmux.pane().contains { $0.hasPrefix("2026-11-29 10:04") } }
        let screen = try tmux.pane().joined(separator: "\n")
        #expect(shown, "\(screen)")
        // A line wider than the pane wraps: joining wrapped lines (-J) would then give fewer.
        let joined = try tmux.run(["capture-pane", "-p", "-J", "-t", "follow"], capture: true).split(
            separator: "\n", omittingEmptySubsequences: false)
        let pane = try tmux.pane()
        #expect(joined.count == pane.count, "a line wrapped at \(columns) columns:\n\(pane.joined(separator: "\n"))")
        let rows = pane.filter { $0.hasPrefix("2026-11-29 10:0") }
        #expect(rows.count == texts.count, "\(pane.joined(separator: "\n"))")
        #expect(rows.allSatisfy { $0.hasSuffix("…") }, "\(rows.joined(separator: "\n"))")
    }
}
