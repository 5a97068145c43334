import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatCLI

/// The commands as a user runs them: exit codes, stdout, stderr, and the files they leave.
@Suite(.ownThreads) struct CommandsEndToEndTests {
    /// A new store with conversation c1 (alice and bob), made through `chatdir seed`.
    func seededStore(_ directory: TemporaryDirectory, messages: Int = 5) throws -> String {
        let path = directory.file("store")
        let seed = try ChatdirProcess.run(["seed", path, "--conversations", "1", "--messages", "\(messages)"])
        #expect(seed.status == 0, "\(seed.stderr)")
        return path
    }

    func outboxFiles(_ store: String, _ conversation: String = "c1") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: store + "/conversations/\(conversation)/outbox").filter {
            !$0.hasPrefix(".")
        }.sorted()
    }

    @Test(
        "init creates a store that check accepts; a second init refuses and says how to use the store, never to remove it"
    )
    func initStore() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("mine")
        let result = try ChatdirProcess.run(["init", "--user", "alice", "--server", "http://127.0.0.1:8080", path])
        #expect(result.status == 0)
        #expect(result.stdout == path + "\n")
        #expect(
            try String(contentsOfFile: path + "/chatdir.json", encoding: .utf8)
                == "{\n\"format\":1,\n\"segmentSize\":100,\n\"server\":\"http://127.0.0.1:8080\",\n\"userId\":\"alice\"\n}\n"
        )
        #expect(try ChatdirProcess.run(["check", path]).status == 0)
        let again = try ChatdirProcess.run(["init", "--user", "bob", "--store", path])
        #expect(again.status == 73)
        #expect(
            again.stderr
                == "chatdir init: \(path) is already alice's chatdir store, left as it is; use it with --store \(path) (`chatdir config --store \(path)` shows its settings), or give init a new directory\n"
        )
        #expect(!again.stderr.contains("remove"))
        #expect(try ChatdirProcess.run(["check", path]).status == 0)
        let other = directory.file("other")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: false)
        try Data("notes".utf8).write(to: URL(fileURLWithPath: other + "/notes.txt"))
        let full = try ChatdirProcess.run(["init", "--user", "bob", other])
        #expect(full.status == 73)
        #expect(
            full.stderr
                == "chatdir init: \(other) already exists and is not empty, so it is left as it is; give init a new or empty directory\n"
        )
    }

    @Test("send writes one durable outbox file and prints its client message ID")
    func send() throws {
        let directory = try TemporaryDirectory()
        let store = try seededStore(directory)
        let result = try ChatdirProcess.run(["send", "c1", "on", "my", "way"], environment: ["CHATDIR_STORE": store])
        #expect(result.status == 0, "\(result.stderr)")
        let id = result.stdout.trimmingCharacters(in: .newlines)
        #expect((try? ClientMessageID(id)) != nil)
        let files = try outboxFiles(store)
        #expect(files.count == 1 && files[0].hasSuffix("-\(id).json"))
        let content = try String(contentsOfFile: store + "/conversations/c1/outbox/" + files[0], encoding: .utf8)
        #expect(content.hasPrefix("{\"attempts\":0,\"clientMessageId\":\"\(id)\",\"createdAt\":\""))
        #expect(content.hasSuffix("\"state\":\"pending\",\"text\":\"on my way\"}\n"))
        let view = try ChatdirProcess.run(["view", "c1", "--store", store])
        #expect(view.lines.last?.hasSuffix("alice  on my way  ◷ pending") == true)
    }

    @Test(
        "a result that cannot be written to standard output (a full disk) is exit 74, never 0",
        arguments: [
            ["send", "c1", "hi"], ["view", "c1"], ["list"],
        ])
    func fullStandardOutput(_ command: [String]) throws {
        let directory = try TemporaryDirectory()
        let store = try seededStore(directory)
        let quoted = ([ChatdirProcess.executable.path] + command + ["--store", store]).map { "'\($0)'" }.joined(
            separator: " ")
        let result = try ChatdirProcess.run(
            ["-c", quoted + " > /dev/full"], executable: URL(fileURLWithPath: "/bin/sh"))
        #expect(result.status == 74, "\(result.stderr)")
        #expect(result.stderr.contains("cannot write the result to standard output: No space left on device"))
    }

    @Test("send reads the text from standard input when none is given")
    func sendFromStdin() throws {
        let directory = try TemporaryDirectory()
        let store = try seededStore(directory)
        let result = try ChatdirProcess.run(["send", "--store", store, "c1"], input: "line one\nline two\n")
        #expect(result.status == 0, "\(result.stderr)")
        let json = try ChatdirProcess.run(["view", "--store", store, "c1", "--json", "--limit", "1"])
        let row =
            try JSONSerialization.jsonObject(with: Data(json.lines.last.map { Data($0.utf8) } ?? Data()))
            as? [String: Any]
        #expect(row?["text"] as? String == "line one\nline two")
        #expect(row?["status"] as? String == "pending")
    }

    @Test("send works while the sync worker holds the store's lock")
    func sendWhileLocked() throws {
        let directory = try TemporaryDirectory()
        let store = try seededStore(directory)
        let writer = try StoreWriter(store: try Store.open(at: store))
        let result = try ChatdirProcess.run(["send", "--store", store, "c1", "offline and locked"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try outboxFiles(store).count == 1)
        withExtendedLifetime(writer) {}
    }

    @Test("20 sends at once give 20 valid outbox files with 20 distinct IDs")
    func concurrentSends() throws {
        let directory = try TemporaryDirectory()
        let store = try seededStore(directory)
        let processes = try (1...20).map { index -> (TestProcess, Pipe) in
            let pipe = Pipe()
            return (
                try ChatdirProcess.start(["send", "--store", store, "c1", "message \(index)"], standardOutput: pipe),
                pipe
            )
        }
        var printed = Set<String>()
        for (process, pipe) in processes {
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            printed.insert(output.trimmingCharacters(in: .newlines))
        }
        #expect(printed.count == 20)
        let files = try outboxFiles(store)
        #expect(files.count == 20)
        #expect(Set(files.map { String($0.dropFirst(21).dropLast(5)) }) == printed)
        let entries = try Store.open(at: store).conversation(try ConversationID("c1")).outbox()
        #expect(Set(entries.map(\.text)) == Set((1...20).map { "message \($0)" }))
        #expect(try ChatdirProcess.run(["check", store]).status == 0)
    }

    @Test("retry puts a failed message at the back of the queue with the same ID")
    func retry() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store")
        #expect(
            try ChatdirProcess.run([
                "seed", store, "--conversations", "1", "--messages", "3", "--failed", "2", "--pending", "1",
            ]).status == 0)
        let before = try ChatdirProcess.run(["view", "--store", store, "c1", "--json"]).lines
        let failedIDs = before.compactMap { line -> String? in
            let row = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            return row?["status"] as? String == "failed" ? row?["clientMessageId"] as? String : nil
        }
        #expect(failedIDs.count == 2)
        let retried = try ChatdirProcess.run(["retry", "--store", store, "c1", failedIDs[0]])
        #expect(retried.status == 0)
        #expect(retried.stdout == failedIDs[0] + "\n")
        let after = try ChatdirProcess.run(["view", "--store", store, "c1", "--json"]).lines
        let last = try JSONSerialization.jsonObject(with: Data((after.last ?? "").utf8)) as? [String: Any]
        #expect(last?["clientMessageId"] as? String == failedIDs[0])
        #expect(last?["status"] as? String == "pending")
        let all = try ChatdirProcess.run(["retry", "--store", store, "--all"])
        #expect(all.lines == [failedIDs[1]])
        // A no-op says so on stderr, as cancel --all-failed does, and prints no ID on stdout.
        let none = try ChatdirProcess.run(["retry", "--store", store, "--all"])
        #expect(none.status == 0 && none.stdout.isEmpty)
        #expect(none.stderr == "chatdir retry: no failed messages to retry; nothing to do\n")
    }

    @Test("seed is deterministic: the same parameters give byte-identical stores")
    func seedDeterminism() throws {
        let directory = try TemporaryDirectory()
        for name in ["one", "two"] {
            let result = try ChatdirProcess.run([
                "seed", directory.file(name), "--conversations", "2", "--messages", "250", "--members", "5",
                "--pending", "1", "--failed", "1", "--seed", "7",
            ])
            #expect(result.status == 0)
        }
        let one = try snapshotFiles(directory.file("one"))
        let two = try snapshotFiles(directory.file("two"))
        // manifest, lock; per conversation: details, positions, 3 segments, .newest, 2 outbox files
        #expect(one.count == 2 + 2 * (2 + 3 + 1 + 2))
        #expect(one == two)
        #expect(try ChatdirProcess.run(["check", directory.file("one")]).stdout.isEmpty)
    }

    @Test("list shows conversations, newest activity first, with unread, pending and failed counts")
    func list() throws {
        let result = try ChatdirProcess.run([
            "list", "--store", packageRoot.appendingPathComponent("SampleData/alice").path,
        ])
        #expect(result.status == 0)
        #expect(
            result.lines == [
                "carol   Carol  (2 unread, 2 pending, 1 failed)  2026-11-29 17:58 carol: Around 7",
                "dinner  Friday dinner  2026-11-29 12:41 alice: Bring cash, they don't take cards",
                "bob     Bob  2026-11-29 10:42 alice: Ordered you a flat white",
            ])
    }

    @Test("--help reaches the shell: the command's help on stdout, exit 0")
    func help() throws {
        let result = try ChatdirProcess.run(["view", "--help"])
        #expect(result.status == 0)
        #expect(result.stdout == ViewCommand.spec.help + "\n")
        #expect(result.stderr.isEmpty)
    }

    // The usage-error table runs in-process (ArgumentsTests); these prove the words and the
    // exit code reach the shell and that nothing is written.
    @Test("a usage error reaches the shell: exit 64, the exact words on stderr, nothing on stdout or in the store")
    func usageError() throws {
        let directory = try TemporaryDirectory()
        let store = try seededStore(directory)
        let before = try snapshotFiles(store)
        let result = try ChatdirProcess.run(["view", "c1", "--limit", "0"], environment: ["CHATDIR_STORE": store])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr
                == "chatdir view: --limit must be a whole number from 1 to 1000000, not \"0\"\nRun `chatdir view --help` for usage.\n"
        )
        #expect(try snapshotFiles(store) == before)
    }

    @Test(
        "an unknown command exits 64 with the nearest command when one is close, and one line of usage, not the whole help",
        arguments: [
            ("snd", "chatdir: unknown command \"snd\"; did you mean `send`?\n"),
            ("serach", "chatdir: unknown command \"serach\"; did you mean `search`?\n"),
            ("--verison", "chatdir: unknown command \"--verison\"; did you mean `--version`?\n"),
            ("frobnicate", "chatdir: unknown command \"frobnicate\"\n"),
        ])
    func unknownCommand(_ typed: String, _ first: String) throws {
        let result = try ChatdirProcess.run([typed, "dinner", "hello"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == first + "Usage: chatdir <command> [options]; `chatdir --help` lists the commands\n")
        // `chatdir help NAME` says the same of a NAME that is no command.
        let help = try ChatdirProcess.run(["help", typed])
        #expect(help.status == 64 && help.stdout.isEmpty)
        #expect(help.stderr == result.stderr)
    }

    @Test("a mistyped option exits 64 with the nearest option and the command's usage line, not its help")
    func unknownOption() throws {
        let directory = try TemporaryDirectory()
        let store = try seededStore(directory)
        let result = try ChatdirProcess.run(["view", "c1", "--limt", "5"], environment: ["CHATDIR_STORE": store])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr
                == "chatdir view: unknown option --limt; did you mean `--limit`?\nUsage: chatdir view CONV [--limit N] [--before SEQ] [--json]\n"
        )
    }

    @Test("a missing store or conversation is reported with what to do (exit 66)")
    func missing() throws {
        let directory = try TemporaryDirectory()
        let noStore = try ChatdirProcess.run(["view", "c1", "--store", directory.file("nowhere")])
        #expect(noStore.status == 66)
        #expect(noStore.stderr.contains("not a chatdir store (it does not exist); create one with `chatdir init"))
        let store = try seededStore(directory)
        let noConversation = try ChatdirProcess.run(["send", "--store", store, "c9", "hello"])
        #expect(noConversation.status == 66)
        #expect(noConversation.stderr.contains("no conversation \"c9\" in this store"))
    }
}
