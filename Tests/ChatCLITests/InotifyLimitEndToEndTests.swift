import ChatDomain
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

/// Runs `chatdir` with the kernel's inotify limits reached for it alone: in a user namespace of
/// its own (`unshare -U -r`), whose limits (`/proc/sys/user/max_inotify_watches` and
/// `max_inotify_instances`) count only the watches and instances made inside it, so the
/// machine's setting and every other process are left alone.
enum LoweredInotify {
    static let unshare =
        ["/usr/bin/unshare", "/bin/unshare"].first { FileManager.default.isExecutableFile(atPath: $0) }
        ?? "/usr/bin/unshare"

    /// The program and arguments to put before `chatdir ARGUMENTS…`: at most `watches` watches
    /// and `instances` inotify descriptors (nil leaves that limit as it is).
    static func launcher(watches: Int?, instances: Int? = nil) -> [String] {
        var steps: [String] = []
        if let watches { steps.append("echo \(watches) > /proc/sys/user/max_inotify_watches") }
        if let instances { steps.append("echo \(instances) > /proc/sys/user/max_inotify_instances") }
        steps.append("exec \"$0\" \"$@\"")
        return [unshare, "-U", "-r", "sh", "-c", steps.joined(separator: " && ")]
    }

    /// The same as one shell command line (for tmux): `chatdir ARGUMENTS…` under the limits.
    static func commandLine(watches: Int?, instances: Int? = nil, _ arguments: [String]) -> String {
        (launcher(watches: watches, instances: instances) + [ChatdirProcess.executable.path] + arguments).map(quoted)
            .joined(separator: " ")
    }

    static func quoted(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Fails the test, saying why, when this machine will not make a user namespace or let its
    /// limits be set: the tests below would prove nothing, and must not pass as if they had.
    static func requireAvailable() throws {
        let probe = try spawnAndWait(
            unshare,
            [
                "-U", "-r", "sh", "-c",
                "echo 1 > /proc/sys/user/max_inotify_watches && cat /proc/sys/user/max_inotify_watches",
            ],
            environment: ProcessInfo.processInfo.environment)
        let answer = String(decoding: probe.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        try #require(
            probe.status == 0 && answer == "1",
            """
            `unshare -U -r` with /proc/sys/user/max_inotify_watches set to 1 is not permitted here \
            (status \(probe.status): \(String(decoding: probe.stderr, as: UTF8.self))): these tests need user namespaces \
            (kernel.unprivileged_userns_clone, or root) to reach the inotify limits without touching the machine's
            """)
    }
}

/// Following commands with the kernel's inotify limits reached, run for real: each must show
/// what is stored and queued after it started, and say once why it checks every second.
@Suite(.ownThreads) struct InotifyLimitEndToEndTests {
    /// A seeded store: c1 with bob, five messages (``FollowEndToEndTests/seededStore(in:)``).
    func seededStore(in directory: TemporaryDirectory) throws -> String {
        try FollowEndToEndTests().seededStore(in: directory)
    }

    /// Stores bob's message `sequence` in c1, as a sync worker would.
    func store(_ sequence: Int, _ text: String, in store: String) throws {
        let writer = try StoreWriter(store: try Store.open(at: store))
        try writer.save(
            [
                Message(
                    sequence: sequence, clientMessageID: .random(), senderID: try UserID("bob"), text: text,
                    sentAt: "2026-11-29T10:00:00.000Z")
            ], in: try ConversationID("c1"))
    }

    func warnings(_ lines: [String], _ command: String) -> [String] {
        lines.filter { $0.hasPrefix("chatdir \(command): warning: ") }
    }

    @Test(
        "view --follow into a pipe with one inotify watch (the conversation's folder only) or none prints a message queued and one stored after it started, and warns once on stderr",
        arguments: [1, 0])
    func viewFollowPipe(watches: Int) throws {
        try LoweredInotify.requireAvailable()
        let directory = try TemporaryDirectory()
        let store = try seededStore(in: directory)
        let follow = try RunningChatdir(
            ["view", "c1", "--follow", "--json", "--limit", "1", "--store", store],
            launcher: LoweredInotify.launcher(watches: watches))
        defer { _ = follow.interrupt() }
        #expect(waitUntil { follow.output.count == 1 }, "the newest stored row first; stderr: \(follow.errors)")

        let sent = try ChatdirProcess.run(["send", "--store", store, "c1", "queued while polling"])
        #expect(sent.status == 0)
        #expect(
            waitUntil {
                follow.output.contains {
                    $0.contains("\"text\":\"queued while polling\"") && $0.contains("\"status\":\"pending\"")
                }
            },
            "a queued message shows; stdout: \(follow.output) stderr: \(follow.errors)")
        try self.store(6, "stored while polling", in: store)
        #expect(
            waitUntil {
                follow.output.contains { $0.contains("\"sequence\":6") && $0.contains("stored while polling") }
            },
            "a stored message shows; stdout: \(follow.output) stderr: \(follow.errors)")

        #expect(follow.interrupt() == 0)
        #expect(waitUntil { follow.errorsComplete })
        let warned = warnings(follow.errors, "view")
        #expect(warned.count == 1, "one warning: \(follow.errors)")
        let warning = try #require(warned.first)
        // With one watch, the conversation's folder has it and a subfolder is refused; with none, the folder itself.
        #expect(
            warning.hasPrefix(
                "chatdir view: warning: cannot watch \(store)/conversations/c1" + (watches == 1 ? "/" : ": ")),
            "\(warning)")
        #expect(
            warning.contains("the kernel's inotify watch limit is reached (fs.inotify.max_user_watches = "),
            "\(warning)")
        #expect(
            warning.contains(
                "; user.max_inotify_watches = \(watches) in this user namespace); checking for changes every second instead. Raise it with `sysctl fs.inotify.max_user_watches="
            ), "\(warning)")
        #expect(follow.errors.count == 1, "nothing else on stderr: \(follow.errors)")
    }

    @Test("view --follow with enough inotify watches for its three folders says nothing about polling")
    func viewFollowEnoughWatches() throws {
        try LoweredInotify.requireAvailable()
        let directory = try TemporaryDirectory()
        let store = try seededStore(in: directory)
        let follow = try RunningChatdir(
            ["view", "c1", "--follow", "--json", "--limit", "1", "--store", store],
            launcher: LoweredInotify.launcher(watches: 3))
        defer { _ = follow.interrupt() }
        #expect(waitUntil { follow.output.count == 1 })
        try ChatdirProcess.run(["send", "--store", store, "c1", "told by inotify"])
        #expect(waitUntil { follow.output.contains { $0.contains("told by inotify") } })
        #expect(follow.interrupt() == 0)
        #expect(waitUntil { follow.errorsComplete })
        #expect(follow.errors.isEmpty, "\(follow.errors)")
    }

    @Test(
        "view --follow in a terminal with one inotify watch: the status line says it checks every second, a sent message shows, and the warning is printed once when the screen is put away",
        .enabled(if: Tmux.isAvailable, "tmux is not installed (.ci/run installs it)"))
    func viewFollowTerminal() throws {
        try LoweredInotify.requireAvailable()
        let directory = try TemporaryDirectory()
        let store = try seededStore(in: directory)
        let tmux = Tmux()
        defer { tmux.shutDown() }
        let command =
            "export TZ=UTC NO_COLOR=1; "
            + LoweredInotify.commandLine(watches: 1, ["view", "c1", "--follow", "--store", store])
            + "; echo \"exit status $?\"; sleep 30"
        try tmux.run(["new-session", "-d", "-s", "follow", "-x", "160", "-y", "20", command])
        let status =
            "checking for changes every second: inotify watch limit reached (fs.inotify.max_user_watches) · no sync worker running"
        #expect(
            try waitUntil { try tmux.pane().last { !$0.isEmpty }?.contains(status) == true }, "\(tmux.screen("follow"))"
        )

        #expect(try ChatdirProcess.run(["send", "--store", store, "c1", "hello"]).status == 0)
        #expect(
            try waitUntil { try tmux.pane().contains { $0.contains("alice  hello  ◷ pending") } },
            "\(tmux.screen("follow"))")
        try self.store(6, "stored while polling", in: store)
        #expect(
            try waitUntil { try tmux.pane().contains { $0.contains("bob    stored while polling") } },
            "\(tmux.screen("follow"))")

        try tmux.run(["send-keys", "-t", "follow", "C-c"])
        #expect(try waitUntil { try tmux.pane().contains("exit status 0") }, "\(tmux.screen("follow"))")
        // Wrapped lines joined: the warning is one line of stderr.
        let screen = try tmux.run(["capture-pane", "-p", "-J", "-t", "follow"], capture: true).split(separator: "\n")
            .map(String.init)
        let warned = warnings(screen, "view")
        #expect(warned.count == 1, "\(screen)")
        #expect(warned.first?.contains("fs.inotify.max_user_watches") == true, "\(screen)")
    }

    @Test("watch CONV with one inotify watch prints a queued message's line and warns once on stderr, not on stdout")
    func watchConversation() throws {
        try LoweredInotify.requireAvailable()
        let directory = try TemporaryDirectory()
        let store = try seededStore(in: directory)
        let watch = try RunningChatdir(
            ["watch", "c1", "--store", store], launcher: LoweredInotify.launcher(watches: 1))
        defer { _ = watch.interrupt() }
        #expect(waitUntil { watch.output.first == #"{"event":"watching","conversationId":"c1"}"# }, "\(watch.errors)")
        let sent = try ChatdirProcess.run(["send", "--store", store, "c1", "ping"])
        let id = sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            waitUntil { watch.output.contains { $0.contains("\"event\":\"outbox-added\"") && $0.contains(id) } },
            "stdout: \(watch.output) stderr: \(watch.errors)")
        try self.store(6, "pong", in: store)
        #expect(
            waitUntil {
                watch.output.contains { $0.contains("\"event\":\"message\"") && $0.contains("\"sequence\":6") }
            }, "stdout: \(watch.output)")
        #expect(watch.interrupt() == 0)
        #expect(waitUntil { watch.errorsComplete })
        #expect(warnings(watch.errors, "watch").count == 1, "\(watch.errors)")
        #expect(watch.errors.count == 1, "\(watch.errors)")
        #expect(
            !watch.output.contains { $0.contains("warning") || $0.contains("inotify") },
            "stdout stays the changes: \(watch.output)")
    }

    @Test(
        "watch (the whole store) with no inotify instance to spare polls everything, and names fs.inotify.max_user_instances once"
    )
    func watchStoreWithoutInstances() throws {
        try LoweredInotify.requireAvailable()
        let directory = try TemporaryDirectory()
        let store = try seededStore(in: directory)
        let watch = try RunningChatdir(
            ["watch", "--store", store], launcher: LoweredInotify.launcher(watches: nil, instances: 0))
        defer { _ = watch.interrupt() }
        #expect(waitUntil { watch.output.first == #"{"event":"watching"}"# }, "\(watch.errors)")
        let sent = try ChatdirProcess.run(["send", "--store", store, "c1", "ping"])
        let id = sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(
            waitUntil { watch.output.contains { $0.contains("\"event\":\"outbox-added\"") && $0.contains(id) } },
            "stdout: \(watch.output) stderr: \(watch.errors)")
        #expect(watch.interrupt() == 0)
        #expect(waitUntil { watch.errorsComplete })
        let warned = warnings(watch.errors, "watch")
        #expect(warned.count == 1, "\(watch.errors)")
        #expect(
            warned.first?.hasPrefix(
                "chatdir watch: warning: cannot start inotify for \(store): the kernel's limit on inotify instances is reached (fs.inotify.max_user_instances = "
            ) == true, "\(watch.errors)")
        #expect(
            warned.first?.contains("user.max_inotify_instances = 0 in this user namespace") == true, "\(watch.errors)")
    }

    @Test(
        "list --follow into a pipe with one inotify watch (the store's folder only) prints the conversation again when a message is stored, and warns once"
    )
    func listFollowPipe() throws {
        try LoweredInotify.requireAvailable()
        let directory = try TemporaryDirectory()
        let store = try seededStore(in: directory)
        let list = try RunningChatdir(
            ["list", "--follow", "--json", "--store", store], launcher: LoweredInotify.launcher(watches: 1))
        defer { _ = list.interrupt() }
        #expect(waitUntil { list.output.count == 1 }, "\(list.errors)")
        try self.store(6, "the list follows", in: store)
        #expect(
            waitUntil { list.output.contains { $0.contains("\"text\":\"the list follows\"") } },
            "stdout: \(list.output) stderr: \(list.errors)")
        #expect(list.interrupt() == 0)
        #expect(waitUntil { list.errorsComplete })
        #expect(warnings(list.errors, "list").count == 1, "\(list.errors)")
        #expect(list.errors.count == 1, "\(list.errors)")
    }

    @Test(
        "chat with one inotify watch: the status line says it checks every second, messages queued and stored outside show, the warning comes once after the screen",
        .enabled(if: Tmux.isAvailable, "tmux is not installed (.ci/run installs it)"))
    func chatTerminal() throws {
        try LoweredInotify.requireAvailable()
        let directory = try TemporaryDirectory()
        let store = try seededStore(in: directory)
        let runtime = directory.file("run")
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let tmux = Tmux()
        defer { tmux.shutDown() }
        let command =
            "export TZ=UTC NO_COLOR=1 XDG_RUNTIME_DIR='\(runtime)'; "
            + LoweredInotify.commandLine(watches: 1, ["chat", "c1", "--store", store])
            + "; echo \"exit status $?\"; sleep 30"
        try tmux.run(["new-session", "-d", "-s", "chat", "-x", "160", "-y", "24", command])
        #expect(
            try waitUntil {
                try tmux.pane("chat").contains {
                    $0.contains(
                        "checking for changes every second: inotify watch limit reached (fs.inotify.max_user_watches)")
                }
            },
            "\(tmux.screen("chat"))")
        #expect(try ChatdirProcess.run(["send", "--store", store, "c1", "sent from outside"]).status == 0)
        #expect(
            try waitUntil { try tmux.pane("chat").contains { $0.contains("alice  sent from outside") } },
            "\(tmux.screen("chat"))")
        try self.store(6, "stored from outside", in: store)
        #expect(
            try waitUntil { try tmux.pane("chat").contains { $0.contains("bob    stored from outside") } },
            "\(tmux.screen("chat"))")

        try tmux.run(["send-keys", "-t", "chat", "C-c"])
        #expect(try waitUntil { try tmux.pane("chat").contains("exit status 0") }, "\(tmux.screen("chat"))")
        let screen = try tmux.run(["capture-pane", "-p", "-J", "-t", "chat"], capture: true).split(separator: "\n").map(
            String.init)
        #expect(warnings(screen, "chat").count == 1, "\(screen)")
    }

    @Test(
        "sync --live with no inotify watch to spare logs once that it polls the outbox, and still delivers a message queued after it started"
    )
    func liveWorker() throws {
        try LoweredInotify.requireAvailable()
        let served = try ServedStore()
        let (worker, errors) = try ChatdirProcess.startLiveWorker(
            store: served.store, environment: served.environment,
            launcher: LoweredInotify.launcher(watches: 0))
        let log = Lock<[String]>([])
        let ended = Lock(false)
        readLines(
            of: errors.fileHandleForReading, { line in log.withLock { $0.append(line) } },
            ended: { ended.withLock { $0 = true } })
        defer {
            worker.interrupt()
            worker.waitUntilExit()
        }
        #expect(
            waitUntil { log.withLock { $0 }.contains { $0.contains("chatdir sync: connected to ") } },
            "\(log.withLock { $0 })")
        #expect(
            waitUntil { log.withLock { $0 }.contains { $0.contains("chatdir sync: outbox: cannot watch ") } },
            "\(log.withLock { $0 })")

        let id = try served.send("queued while polling")
        #expect(waitUntil { (try? served.onServer(id)) == 1 }, "\(log.withLock { $0 })")
        worker.interrupt()
        worker.waitUntilExit()
        #expect(waitUntil { ended.withLock { $0 } })
        let lines = log.withLock { $0 }
        let outbox = lines.filter { $0.contains("chatdir sync: outbox: cannot watch ") }
        #expect(outbox.count == 1, "\(lines)")
        #expect(
            outbox.first?.contains("the kernel's inotify watch limit is reached (fs.inotify.max_user_watches = ")
                == true, "\(lines)")
        #expect(lines.filter { $0.contains("chatdir sync: runtime channel: cannot watch ") }.count == 1, "\(lines)")
    }
}
