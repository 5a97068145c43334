import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

/// The built `chatdir` under real `strace`: a SIGKILL cannot show a missing fsync, the order of
/// the syscalls can. Every file `init`, `send`, `read`, `retry`, a sync pass and a live save
/// publish goes temp → write → fsync(temp) → rename/link → fsync(directory), and an outbox file
/// goes only after `messages/` was fsynced. Then ENOSPC and EIO injected by strace into each
/// fsync, write and link of `send`: a clear error, exit 74, nothing queued, and a second send works.
@Suite(
    .ownThreads,
    .enabled(
        if: StraceLog.works,
        "strace cannot trace here (not installed, or ptrace is not allowed); install it with `apt-get install strace`"))
struct FsyncOrderEndToEndTests {
    static let strace = StraceLog.executable

    /// Runs `chatdir arguments…` under strace with `options`, its trace written to a file in `directory`.
    static func traced(
        _ arguments: [String], options: [String] = StraceLog.traceOptions, in directory: TemporaryDirectory,
        environment: [String: String] = [:]
    ) throws -> (result: ChatdirProcess.Result, log: StraceLog) {
        let output = directory.file("trace-\(UUID().uuidString)")
        let result = try ChatdirProcess.run(
            ["-o", output] + options + StraceLog.sanitizerOptions + [ChatdirProcess.executable.path] + arguments,
            environment: environment, executable: URL(fileURLWithPath: strace ?? "strace"))
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return (result, StraceLog(text))
    }

    static func expectOrdered(
        _ log: StraceLog, under root: String, _ what: String, atLeast: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let (published, problems) = log.publishingProblems(under: root)
        #expect(problems.isEmpty, "\(what): \(problems.joined(separator: "\n"))", sourceLocation: sourceLocation)
        #expect(
            published >= atLeast, "\(what) published only \(published) files under \(root)",
            sourceLocation: sourceLocation)
    }

    @Test(
        "init, send, read, retry, a sync pass and a live save each fsync the temp file before publishing it and the directory after"
    )
    func fsyncOrder() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        let store = directory.file("alice")
        let token = ["CHATDIR_TOKEN": "alice-token"]

        let initialized = try Self.traced(["init", "--user", "alice", "--server", server.url, store], in: directory)
        #expect(initialized.result.status == 0, "\(initialized.result.stderr)")
        Self.expectOrdered(initialized.log, under: directory.path, "init", atLeast: 3)

        let first = try Self.traced(["sync", "--store", store], in: directory, environment: token)
        #expect(first.result.status == 0, "\(first.result.stderr)")
        Self.expectOrdered(first.log, under: store, "a sync pass that saves messages and positions", atLeast: 6)
        #expect(
            first.log.calls.contains {
                $0.paths.last?.hasSuffix("/positions.json") == true && $0.name.hasPrefix("rename")
            }, "the pass wrote no positions")

        let sent = try Self.traced(["send", "--store", store, "dinner", "on my way"], in: directory)
        #expect(sent.result.status == 0, "\(sent.result.stderr)")
        Self.expectOrdered(sent.log, under: store, "send", atLeast: 1)

        let read = try Self.traced(["read", "--store", store, "dinner"], in: directory)
        #expect(read.result.status == 0, "\(read.result.stderr)")
        Self.expectOrdered(read.log, under: store, "read", atLeast: 1)

        // A failed message to retry, as the worker would leave it after a rejection.
        let conversation = try Store.open(at: store).conversation(try ConversationID("dinner"))
        let refused = try Outbox(conversation).enqueue("refused once")
        var failed = refused
        failed.state = .failed
        failed.error = "422 test"
        try DurableFile.write(
            OutboxFile.encode(failed), to: OutboxFile.fileName(ordinal: refused.ordinal, id: refused.clientMessageID),
            in: conversation.outboxDirectory)
        let retried = try Self.traced(
            ["retry", "--store", store, "dinner", refused.clientMessageID.rawValue], in: directory)
        #expect(retried.result.status == 0, "\(retried.result.stderr)")
        Self.expectOrdered(retried.log, under: store, "retry", atLeast: 2)

        // Delivers both, saves them, removes their outbox files, posts and settles the read wish.
        let second = try Self.traced(["sync", "--store", store], in: directory, environment: token)
        #expect(second.result.status == 0, "\(second.result.stderr)")
        Self.expectOrdered(second.log, under: store, "a sync pass that delivers the outbox", atLeast: 3)
        #expect(
            second.log.calls.contains {
                $0.name.hasPrefix("unlink") && $0.paths.first?.contains("/outbox/") == true
                    && !StraceLog.isTemporary($0.paths.first ?? "")
            },
            "the pass removed no outbox file")
        #expect(try conversation.outbox().isEmpty)

        // A live save: bob's message arrives over the live socket while the worker is traced.
        let bob = directory.file("bob")
        #expect(try ChatdirProcess.run(["init", "--user", "bob", "--server", server.url, bob]).status == 0)
        #expect(
            try ChatdirProcess.run(["sync", "--store", bob], environment: ["CHATDIR_TOKEN": "bob-token"]).status == 0)
        let output = directory.file("trace-live")
        let logPath = directory.file("live-stderr")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let worker = try ChatdirProcess.start(
            ["sync", "--live", "--store", store], environment: ["CHATDIR_TOKEN": "alice-token"],
            launcher: [Self.strace ?? "strace", "-o", output] + StraceLog.traceOptions + StraceLog.sanitizerOptions,
            standardInput: nil, standardError: FileHandle(forWritingAtPath: logPath))
        defer { if worker.isRunning { kill(worker.processIdentifier, SIGKILL) } }
        let livePath = store + "/conversations/alice-bob/messages"
        // Posted once the worker has caught up, so it comes over the live socket.
        waitUntil(timeout: .seconds(30)) {
            ((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").contains("caught up")
        }
        #expect(try ChatdirProcess.run(["send", "--store", bob, "alice-bob", "live hello"]).status == 0)
        #expect(
            try ChatdirProcess.run(["sync", "--store", bob], environment: ["CHATDIR_TOKEN": "bob-token"]).status == 0)
        #expect(
            waitUntil(timeout: .seconds(30)) { Self.segmentText(livePath).contains("live hello") },
            "the live worker never stored bob's message")
        // SIGTERM to chatdir itself (strace's child): it finishes the write in progress and exits.
        let children =
            (try? String(
                contentsOfFile: "/proc/\(worker.processIdentifier)/task/\(worker.processIdentifier)/children",
                encoding: .utf8)) ?? ""
        if let child = children.split(separator: " ").first.flatMap({ Int32($0) }) { kill(child, SIGTERM) }
        worker.waitUntilExit()
        let live = StraceLog((try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
        Self.expectOrdered(live, under: store, "a live worker's saves", atLeast: 1)
        #expect(
            live.calls.contains { $0.name.hasPrefix("rename") && $0.paths.last?.hasPrefix(livePath + "/") == true },
            "the live worker renamed no segment")
    }

    /// alice's new store in `directory` with `texts` queued in c1 (which makes its outbox).
    static func storeWithOutbox(
        _ texts: [String], in directory: TemporaryDirectory, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (store: String, conversation: Conversation) {
        let store = directory.file("alice")
        #expect(try ChatdirProcess.run(["init", "--user", "alice", store]).status == 0, sourceLocation: sourceLocation)
        let conversation = try Store.open(at: store).conversation(try ConversationID("c1"))
        for text in texts { try Outbox(conversation).enqueue(text) }
        return (store, conversation)
    }

    @Test(
        "a send touches the disk exactly as Maildir does: one temp file created, one write, its fsync, one link, the outbox's fsync, the temp name's unlink; nothing else, and few reads"
    )
    func sendIsMaildirsSequence() throws {
        let directory = try TemporaryDirectory()
        // an outbox to list
        let (store, conversation) = try Self.storeWithOutbox(["one", "two", "three"], in: directory)
        let sent = try Self.traced(
            ["send", "--store", store, "c1", "on my way"], options: StraceLog.everyFileCall, in: directory)
        #expect(sent.result.status == 0, "\(sent.result.stderr)")
        let outbox = conversation.outboxDirectory
        let entry = try #require(try conversation.outbox().last)
        #expect(entry.text == "on my way")
        let final = outbox + "/" + OutboxFile.fileName(ordinal: entry.ordinal, id: entry.clientMessageID)

        // ThreadSanitizer's runtime makes (and at once unlinks) a scratch file of its own at
        // start, `/tmp/tsan.rodata.PID`: not chatdir's doing, so not counted.
        let changes = sent.log.calls.filter(\.changesDisk).filter {
            !$0.paths.contains { $0.contains("/tsan.rodata.") }
        }
        let listed = changes.map(\.description).joined(separator: "\n")
        try #require(changes.count == 6, "expected 6 calls that change the disk, found \(changes.count):\n\(listed)")
        let temp = changes[0].paths.first ?? ""
        #expect(
            changes[0].name == "openat" && changes[0].creates && StraceLog.isTemporary(temp)
                && StraceLog.parent(temp) == outbox, "\(changes[0])")
        #expect(changes[0].line.contains("O_EXCL") && changes[0].line.contains("O_CLOEXEC"), "\(changes[0])")
        #expect(changes[1].name == "write" && changes[1].paths == [temp], "one write of the whole file: \(changes[1])")
        #expect(changes[2].name == "fsync" && changes[2].paths == [temp], "\(changes[2])")
        #expect(changes[3].name == "linkat" && changes[3].paths == [temp, final], "\(changes[3])")
        #expect(changes[4].name == "fsync" && changes[4].paths == [outbox], "\(changes[4])")
        #expect(changes[5].name == "unlinkat" && changes[5].paths == [temp], "\(changes[5])")

        // Reads may remain: what the send opens, stats and lists under the store, counted.
        let underStore = sent.log.calls.filter { $0.paths.first?.hasPrefix(store + "/") == true && !$0.changesDisk }
        let opened = underStore.filter { $0.name == "openat" || $0.name == "open" }.compactMap(\.paths.first)
        let stats = underStore.filter { ["newfstatat", "statx", "stat", "lstat", "fstat"].contains($0.name) }
        let locks = underStore.filter { $0.name == "flock" }
        // chatdir.json (the manifest), outbox/ held locked, outbox/ listed for the newest ordinal;
        // one lstat each of conversations/, the conversation, messages/ and outbox/ (a folder
        // a commit made a symlink is refused before anything is written).
        #expect(opened.count <= 3, "opened \(opened)")
        #expect(Set(opened).isSubset(of: [store + "/chatdir.json", outbox]), "opened \(opened)")
        #expect(stats.count <= 4, "stats: \(stats.map(\.description).joined(separator: "\n"))")
        #expect(
            locks.count == 1 && locks.first?.paths == [outbox] && locks.first?.line.contains("LOCK_EX") == true,
            "\(locks)")
    }

    static func segmentText(_ directory: String) -> String {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().compactMap {
            try? String(contentsOfFile: directory + "/" + $0, encoding: .utf8)
        }.joined()
    }

    @Test(
        "send under strace-injected ENOSPC or EIO at each fsync, write and link: exit 74 naming the call, nothing queued, check clean, the next send works"
    )
    func injectedSendFaults() throws {
        let directory = try TemporaryDirectory()
        let (store, conversation) = try Self.storeWithOutbox(["earlier"], in: directory)
        let counted = try Self.traced(["send", "--store", store, "c1", "counting"], in: directory)
        #expect(counted.result.status == 0, "\(counted.result.stderr)")
        let outbox = conversation.outboxDirectory
        for syscall in ["fsync", "write", "linkat"] {
            // Only the calls on the store's files: a write to stdout is the printed ID.
            let calls = counted.log.calls.filter { $0.name == syscall }
            #expect(!calls.isEmpty, "send made no \(syscall)")
            for (number, call) in calls.enumerated() where call.paths.allSatisfy({ $0.hasPrefix(store + "/") }) {
                for errno in ["ENOSPC", "EIO"] {
                    let context = "\(syscall) #\(number + 1) (\(call.line.prefix(120))) failing with \(errno)"
                    let before = try conversation.outbox().map(\.clientMessageID)
                    let options = [
                        "-f", "-qq", "-e", "trace=\(syscall)", "-e",
                        "inject=\(syscall):error=\(errno):when=\(number + 1)",
                    ]
                    let failed = try Self.traced(
                        ["send", "--store", store, "c1", "doomed"], options: options, in: directory
                    ).result
                    #expect(failed.status == 74, "\(context): exit \(failed.status), \(failed.stderr)")
                    let words = errno == "ENOSPC" ? "No space left on device" : "Input/output error"
                    let name = syscall == "linkat" ? "link" : syscall
                    #expect(
                        failed.stderr.contains(words) && failed.stderr.contains("\(name) \(outbox)"),
                        "\(context): \(failed.stderr)")
                    #expect(
                        failed.stderr.contains("nothing was queued")
                            && failed.stderr.contains(errno == "ENOSPC" ? "free some space" : "check the disk"),
                        "\(context): \(failed.stderr)")
                    #expect(failed.stdout.isEmpty, "\(context): printed \(failed.stdout)")
                    #expect(
                        try conversation.outbox().map(\.clientMessageID) == before, "\(context): the outbox changed")
                    let visible = try FileManager.default.contentsOfDirectory(atPath: outbox).filter {
                        $0.hasPrefix(".")
                    }
                    #expect(visible.isEmpty, "\(context): left \(visible)")
                    let check = try ChatdirProcess.run(["check", store])
                    #expect(check.status == 0, "\(context): \(check.stdout) \(check.stderr)")
                    let next = try ChatdirProcess.run(["send", "--store", store, "c1", "after \(context)"])
                    #expect(next.status == 0, "\(context): the next send failed: \(next.stderr)")
                }
            }
        }
        #expect(try conversation.outbox().allSatisfy { $0.text != "doomed" })
    }

    @Test(
        "retry under strace-injected ENOSPC or EIO at each fsync, write and rename: exit 74 naming the call, one file for the message, check clean, the next retry works"
    )
    func injectedRetryFaults() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("alice")
        #expect(try ChatdirProcess.run(["init", "--user", "alice", store]).status == 0)
        let conversation = try Store.open(at: store).conversation(try ConversationID("c1"))
        let id = try Outbox(conversation).enqueue("refused").clientMessageID
        try Outbox(conversation).enqueue("later")
        /// Marks the message failed again, wherever in the queue it is now.
        func fail() throws {
            guard var entry = try conversation.outbox().first(where: { $0.clientMessageID == id }) else { return }
            entry.state = .failed
            entry.error = "422 test"
            try DurableFile.write(
                OutboxFile.encode(entry), to: OutboxFile.fileName(ordinal: entry.ordinal, id: id),
                in: conversation.outboxDirectory)
        }
        try fail()
        let counted = try Self.traced(["retry", "--store", store, "c1", id.rawValue], in: directory)
        #expect(counted.result.status == 0, "\(counted.result.stderr)")
        let outbox = conversation.outboxDirectory
        for syscall in ["fsync", "write", "rename"] {
            // Numbered among all calls of the syscall (as strace's `when=` counts); only those on
            // the store's files are failed (a write to stdout is the printed ID).
            let traced = counted.log.calls.filter { $0.name.hasPrefix(syscall) }
            #expect(
                traced.contains { $0.paths.allSatisfy { $0.hasPrefix(store + "/") } },
                "retry made no \(syscall) on the store")
            guard let name = traced.first?.name else { continue }
            for (number, call) in traced.enumerated() where call.paths.allSatisfy({ $0.hasPrefix(store + "/") }) {
                for errno in ["ENOSPC", "EIO"] {
                    try fail()
                    let context = "\(name) #\(number + 1) (\(call.line.prefix(120))) failing with \(errno)"
                    let options = [
                        "-f", "-qq", "-e", "trace=\(name)", "-e", "inject=\(name):error=\(errno):when=\(number + 1)",
                    ]
                    let failed = try Self.traced(
                        ["retry", "--store", store, "c1", id.rawValue], options: options, in: directory
                    ).result
                    #expect(failed.status == 74, "\(context): exit \(failed.status), \(failed.stderr)")
                    let words = errno == "ENOSPC" ? "No space left on device" : "Input/output error"
                    #expect(
                        failed.stderr.contains(words) && failed.stderr.contains("\(syscall) \(outbox)"),
                        "\(context): \(failed.stderr)")
                    #expect(
                        failed.stderr.contains(errno == "ENOSPC" ? "free some space" : "check the disk"),
                        "\(context): \(failed.stderr)")
                    #expect(
                        try conversation.outbox().filter { $0.clientMessageID == id }.count == 1,
                        "\(context): not one file for the message")
                    let visible = try FileManager.default.contentsOfDirectory(atPath: outbox).filter {
                        $0.hasPrefix(".")
                    }
                    #expect(visible.isEmpty, "\(context): left \(visible)")
                    let check = try ChatdirProcess.run(["check", store])
                    #expect(check.status == 0, "\(context): \(check.stdout) \(check.stderr)")
                    let next = try ChatdirProcess.run(["retry", "--store", store, "c1", id.rawValue])
                    #expect(next.status == 0, "\(context): the next retry failed: \(next.stderr)")
                    #expect(
                        try conversation.outbox().last.map { $0.clientMessageID == id && $0.state == .pending } == true,
                        "\(context): not pending at the back")
                }
            }
        }
    }
}
