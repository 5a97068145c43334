import ChatDomain
import ChatServer
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

/// `chatdir chat` in real terminals (tmux), with the reference server and a live worker for
/// each of two users: what each of them sees on screen.
@Suite(.ownThreads, .enabled(if: Tmux.isAvailable, "tmux is not installed (.ci/run installs it)"))
struct ChatEndToEndTests {
    /// One user: a store, a runtime directory of their own (the typing channel), a live worker.
    final class Member {
        let name: String
        let store: String
        let runtime: String
        let worker: TestProcess
        private let log = Lock("")

        /// `store` is an existing store of `name`'s; without it one is made.
        init(_ name: String, store existing: String? = nil, server: String, in directory: TemporaryDirectory) throws {
            self.name = name
            store = existing ?? directory.file(name)
            runtime = directory.file("run-" + name)
            try FileManager.default.createDirectory(
                atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            if existing == nil {
                let initialized = try ChatdirProcess.run(["init", "--user", name, "--server", server, store])
                try #require(initialized.status == 0, "\(initialized.stderr)")
            }
            let (worker, stderr) = try ChatdirProcess.startLiveWorker(
                store: store, token: "\(name)-token", environment: ["XDG_RUNTIME_DIR": runtime])
            self.worker = worker
            let log = self.log
            readLines(of: stderr.fileHandleForReading) { line in log.withLock { $0 += line + "\n" } }
        }

        var workerLog: String { log.withLock { $0 } }

        /// The shell command that opens the chat screen in tmux, then says how it ended.
        func chat(_ conversation: String) -> String {
            "env TZ=UTC NO_COLOR=1 XDG_RUNTIME_DIR=\(runtime) \(ChatdirProcess.executable.path) chat \(conversation) --store \(store); echo \"exit status $?\"; sleep 600"
        }

        deinit {
            worker.interrupt()
            worker.waitUntilExit()
        }
    }

    /// Waits until `member`'s worker has stored conversation `id` from the server.
    func waitForConversation(_ id: String, of member: Member) -> Bool {
        waitUntil { FileManager.default.fileExists(atPath: member.store + "/conversations/\(id)/conversation.json") }
    }

    @Test(
        "alice types and sends: bob sees her typing, then the message; alice sees it sent, then read by bob; Ctrl-C restores the terminal"
    )
    func typeAndSend() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory(inMemory: true)
        let alice = try Member("alice", server: server.url, in: directory)
        let bob = try Member("bob", server: server.url, in: directory)
        try #require(waitForConversation("alice-bob", of: alice), "\(alice.workerLog)")
        try #require(waitForConversation("alice-bob", of: bob), "\(bob.workerLog)")
        let tmux = Tmux()
        defer { tmux.shutDown() }
        try tmux.run(["new-session", "-d", "-s", "alice", "-x", "100", "-y", "24", alice.chat("alice-bob")])
        try tmux.run(["new-session", "-d", "-s", "bob", "-x", "100", "-y", "24", bob.chat("alice-bob")])
        #expect(
            try waitUntil { try tmux.pane("alice").contains { $0.contains("sync worker connected") } },
            "\(tmux.screen("alice"))")
        #expect(
            try waitUntil { try tmux.pane("bob").contains { $0.contains("sync worker connected") } },
            "\(tmux.screen("bob"))")

        try tmux.run(["send-keys", "-t", "alice", "-l", "see you at eight"])
        #expect(try waitUntil { try tmux.pane("alice").contains { $0.contains("see you at eight") } })
        #expect(
            try waitUntil { try tmux.pane("bob").contains { $0.contains("alice is typing") } },
            "\(tmux.screen("bob"))\n\(bob.workerLog)\n\(alice.workerLog)")

        try tmux.run(["send-keys", "-t", "alice", "Enter"])
        #expect(
            try waitUntil {
                try tmux.pane("alice").contains { $0.contains("alice  see you at eight") && $0.contains("✓") }
            }, "\(tmux.screen("alice"))")
        #expect(
            try waitUntil { try tmux.pane("bob").contains { $0.contains("alice  see you at eight") } },
            "\(tmux.screen("bob"))")
        #expect(
            try waitUntil { try !tmux.pane("bob").contains { $0.contains("alice is typing") } }, "\(tmux.screen("bob"))"
        )
        // Bob's screen shows the newest row, so it marks it read; his worker posts it, and the
        // tick on alice's screen turns to read.
        #expect(
            try waitUntil {
                try tmux.pane("alice").contains { $0.contains("alice  see you at eight") && $0.contains("✓✓ read") }
            }, "\(tmux.screen("alice"))")
        // The input line is empty again once the message is sent.
        #expect(
            try !tmux.pane("alice").suffix(3).contains { $0.contains("see you at eight") && !$0.contains("alice  ") })

        #expect(try tmux.format("#{alternate_on}", "alice") == "1")
        try tmux.run(["send-keys", "-t", "alice", "C-c"])
        #expect(try waitUntil { try tmux.pane("alice").contains("exit status 0") }, "\(tmux.screen("alice"))")
        #expect(try tmux.format("#{alternate_on} #{cursor_flag}", "alice") == "0 1")
    }

    @Test(
        "a message the server rejects is shown failed, selected with Tab and retried with r under the same client message ID"
    )
    func rejectAndRetry() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let server = try TestServer(faults: "reject-text=forbidden", inMemory: true, sampleData: true)
        let alice = try Member("alice", server: server.url, in: directory)
        try #require(waitForConversation("alice-bob", of: alice), "\(alice.workerLog)")
        let tmux = Tmux()
        defer { tmux.shutDown() }
        try tmux.run(["new-session", "-d", "-s", "alice", "-x", "120", "-y", "24", alice.chat("alice-bob")])
        #expect(
            try waitUntil { try tmux.pane("alice").contains { $0.contains("sync worker connected") } },
            "\(tmux.screen("alice"))")
        try tmux.run(["send-keys", "-t", "alice", "-l", "a forbidden word"])
        try tmux.run(["send-keys", "-t", "alice", "Enter"])
        // The failed tick and its retry hint may wrap onto lines of their own under the text.
        #expect(
            try waitUntil {
                try tmux.pane("alice").contains { $0.contains("alice  a forbidden word") }
                    && tmux.pane("alice").contains { $0.contains("✗ failed") }
            }, "\(tmux.screen("alice"))")
        let outbox = alice.store + "/conversations/alice-bob/outbox"
        let files = try FileManager.default.contentsOfDirectory(atPath: outbox).filter {
            $0.hasSuffix(".json") && $0 != "read.json"
        }
        try #require(files.count == 1, "\(files)")
        let first = try String(contentsOfFile: outbox + "/" + files[0], encoding: .utf8)
        #expect(first.contains(#""attempts":1"#), "\(first)")

        let id = String(files[0].dropFirst(21).dropLast(5)) // <ordinal>-<client message ID>.json
        try tmux.run(["send-keys", "-t", "alice", "Tab"])
        #expect(
            try waitUntil { try tmux.pane("alice").contains { $0.hasPrefix("» ") && $0.contains("a forbidden word") } },
            "\(tmux.screen("alice"))")
        try tmux.run(["send-keys", "-t", "alice", "r"])
        // Retried under the same ID (requeued at the back of the queue: a new ordinal, the same
        // client message ID, one file), and rejected again by the fault: the second attempt.
        #expect(
            waitUntil {
                let now =
                    (try? FileManager.default.contentsOfDirectory(atPath: outbox).filter {
                        $0.hasSuffix(".json") && $0 != "read.json"
                    }) ?? []
                guard now.count == 1, now[0].hasSuffix("-\(id).json") else { return false }
                return ((try? String(contentsOfFile: outbox + "/" + now[0], encoding: .utf8)) ?? "").contains(
                    #""attempts":2"#)
            }, "\(tmux.screen("alice"))")
        #expect(
            try waitUntil { try tmux.pane("alice").contains { $0.contains("✗ failed") } }, "\(tmux.screen("alice"))")
        // `r` retried: it never reached the input line as a letter.
        #expect(try !tmux.pane("alice").suffix(2).contains { $0.hasSuffix("r") })
    }

    @Test(
        "PageUp past what is stored asks the worker for older pages: they are saved and shown, then the beginning of the conversation"
    )
    func scrollBackLoadsFromServer() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory(inMemory: true)
        // Bob fills alice-bob with 120 messages (after the sample's 3); alice's device then keeps
        // only its newest segment, as a device that was given the recent history only.
        let bobStore = directory.file("bob")
        #expect(try ChatdirProcess.run(["init", "--user", "bob", "--server", server.url, bobStore]).status == 0)
        #expect(
            try ChatdirProcess.run(["sync", "--store", bobStore], environment: ["CHATDIR_TOKEN": "bob-token"]).status
                == 0)
        for number in 1...120 {
            #expect(
                try ChatdirProcess.run(["send", "--store", bobStore, "alice-bob", "message number \(number)"]).status
                    == 0)
        }
        let sent = try ChatdirProcess.run(["sync", "--store", bobStore], environment: ["CHATDIR_TOKEN": "bob-token"])
        try #require(sent.status == 0, "\(sent.stderr)")
        let aliceStore = directory.file("alice")
        #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", server.url, aliceStore]).status == 0)
        #expect(
            try ChatdirProcess.run(["sync", "--store", aliceStore], environment: ["CHATDIR_TOKEN": "alice-token"])
                .status == 0)
        let messages = aliceStore + "/conversations/alice-bob/messages"
        try FileManager.default.removeItem(atPath: messages + "/0000000001-0000000100.json")
        let alice = try Member("alice", store: aliceStore, server: server.url, in: directory)
        let tmux = Tmux()
        defer { tmux.shutDown() }
        try tmux.run(["new-session", "-d", "-s", "alice", "-x", "100", "-y", "16", alice.chat("alice-bob")])
        #expect(
            try waitUntil { try tmux.pane("alice").contains { $0.contains("message number 120") } },
            "\(tmux.screen("alice"))")
        #expect(
            try waitUntil { try tmux.pane("alice").contains { $0.contains("sync worker connected") } },
            "\(tmux.screen("alice"))")
        #expect(
            try !tmux.pane("alice").contains { $0.contains("message number 90 ") || $0.hasSuffix("message number 90") })
        // Page up until a row older than the first stored one (sequence 101, "message number
        // 98") is on screen: the worker fetched the page before it, and the rows appear above.
        // One PageUp at a time, each waited for, so a slow run does not scroll past the check.
        func olderRowShown(_ pane: [String]) -> Bool {
            pane.contains { line in
                line.contains("Coffee at 10?")
                    || (line.firstMatch(of: /message number (\d+)$/).map { Int($0.1) ?? 999 } ?? 999) <= 97
            }
        }
        #expect(
            try waitUntil(timeout: .seconds(90)) {
                let before = try tmux.pane("alice")
                if olderRowShown(before) { return true }
                try tmux.run(["send-keys", "-t", "alice", "PageUp"])
                _ = try waitUntil(timeout: .seconds(2)) { try tmux.pane("alice") != before }
                return olderRowShown(try tmux.pane("alice"))
            }, "\(tmux.screen("alice"))\n\(alice.workerLog)")
        #expect(
            FileManager.default.fileExists(atPath: messages + "/0000000001-0000000100.json"),
            "the page was saved in the store")
        #expect(
            try waitUntil(timeout: .seconds(90)) {
                if try tmux.pane("alice").contains(where: { $0.contains("beginning of the conversation") })
                    && tmux.pane("alice").contains(where: { $0.contains("Coffee at 10?") })
                {
                    return true
                }
                let before = try tmux.pane("alice")
                try tmux.run(["send-keys", "-t", "alice", "PageUp"])
                _ = try waitUntil(timeout: .seconds(2)) { try tmux.pane("alice") != before }
                return false
            }, "\(tmux.screen("alice"))\n\(alice.workerLog)")
    }

    @Test("a resize redraws to the new width and keeps what is typed on the input line")
    func resizeKeepsInput() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory(inMemory: true)
        let alice = try Member("alice", server: server.url, in: directory)
        try #require(waitForConversation("alice-bob", of: alice), "\(alice.workerLog)")
        let tmux = Tmux()
        defer { tmux.shutDown() }
        try tmux.run(["new-session", "-d", "-s", "alice", "-x", "100", "-y", "20", alice.chat("alice-bob")])
        #expect(
            try waitUntil { try tmux.pane("alice").contains { $0.contains("Coffee at 10?") } },
            "\(tmux.screen("alice"))")
        try tmux.run(["send-keys", "-t", "alice", "-l", "half a thought"])
        #expect(
            try waitUntil { try tmux.pane("alice").last { !$0.isEmpty }?.contains("half a thought") == true },
            "\(tmux.screen("alice"))")
        try tmux.run(["resize-window", "-t", "alice", "-x", "40", "-y", "12"])
        #expect(
            try waitUntil {
                let pane = try tmux.pane("alice")
                return pane.last { !$0.isEmpty }?.contains("half a thought") == true
                    && pane.contains { $0.contains("Coffee") } && pane.allSatisfy { $0.count <= 40 }
            }, "\(tmux.screen("alice"))")
        // The line still edits where it was: a key after the resize lands at its end.
        try tmux.run(["send-keys", "-t", "alice", "-l", "!"])
        #expect(
            try waitUntil { try tmux.pane("alice").last { !$0.isEmpty }?.contains("half a thought!") == true },
            "\(tmux.screen("alice"))")
    }

    @Test("view --follow shows who is typing from the runtime channel, and drops them once their signal is 6 s old")
    func followShowsTyping() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let store = directory.file("store")
        #expect(try ChatdirProcess.run(["seed", store, "--conversations", "1", "--messages", "3"]).status == 0)
        let runtime = directory.file("run")
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let channel = RuntimeChannel(storeRoot: store, runtimeDirectory: runtime)
        let tmux = Tmux()
        defer { tmux.shutDown() }
        let command =
            "env TZ=UTC NO_COLOR=1 XDG_RUNTIME_DIR=\(runtime) \(ChatdirProcess.executable.path) view c1 --follow --store \(store); sleep 600"
        try tmux.run(["new-session", "-d", "-s", "follow", "-x", "100", "-y", "16", command])
        #expect(
            try waitUntil { try tmux.pane().contains { $0.contains("no sync worker running") } },
            "\(tmux.screen("follow"))")
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try channel.noteTyping(try ConversationID("c1"), user: try UserID("bob"), atMilliseconds: now)
        #expect(
            try waitUntil { try tmux.pane().contains { $0.contains("bob is typing…") } }, "\(tmux.screen("follow"))")
        #expect(
            try waitUntil { try !tmux.pane().contains { $0.contains("bob is typing…") } }, "\(tmux.screen("follow"))")
        #expect(Date().timeIntervalSince1970 * 1000 - Double(now) >= 5_900, "gone only once the signal is 6 s old")
    }

    @Test("chat in a pipe refuses with exit 64 and points to view --follow")
    func refusesWithoutTerminal() throws {
        let directory = try TemporaryDirectory(inMemory: true)
        let store = directory.file("store")
        #expect(try ChatdirProcess.run(["seed", store, "--conversations", "1", "--messages", "3"]).status == 0)
        let result = try ChatdirProcess.run(["chat", "c1", "--store", store])
        #expect(result.status == 64)
        #expect(result.stderr.contains("view --store \(store) c1 --follow"), "\(result.stderr)")
    }
}

extension Tmux {
    /// Session `target`'s pane as one text, for failure messages.
    func screen(_ target: String) -> String {
        (try? pane(target).joined(separator: "\n")) ?? "(no pane)"
    }
}
