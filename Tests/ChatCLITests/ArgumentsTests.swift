import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatCLI

/// Argument parsing and the usage errors, in this process (swift-argument-parser's
/// `ErrorMessageTests` shape): a table of command lines, each with the exact words `chatdir`
/// writes on stderr and its exit code, run through the same steps as ``Chatdir/run(_:environment:)``
/// (find the command, parse against its spec, run it) without starting a `chatdir` process.
/// CommandsEndToEndTests keeps the cases that prove the words and the code reach the shell.
@Suite(.ownThreads) struct ArgumentsTests {
    struct UsageCase: Sendable, CustomTestStringConvertible {
        /// The command line without the program name; `DIR` stands for a path in the test's directory.
        var arguments: [String]
        /// Everything written on stderr, without the final newline.
        var stderr: String
        var testDescription: String {
            arguments.map { $0.count > 24 ? String($0.prefix(8)) + "…(\($0.count))" : $0.debugDescription }.joined(
                separator: " ")
        }

        init(_ arguments: [String], _ stderr: String) {
            self.arguments = arguments
            self.stderr = stderr
        }
    }

    /// Where a `--data` would start a server if a check were missed: a serve case then fails
    /// with 66 instead of serving until killed.
    static let noData = "/nonexistent/chatdir-data"

    static let usageCases: [UsageCase] = [
        UsageCase(
            ["view"], "chatdir view: missing CONV (the conversation to show)\nRun `chatdir view --help` for usage."),
        UsageCase(
            ["view", "../x"],
            "chatdir view: invalid conversation ID \"../x\": it must start with a letter or digit (allowed: letters, digits, '.', '_', '-'; up to 64; starting with a letter or digit)\nRun `chatdir view --help` for usage."
        ),
        UsageCase(
            ["view", "bad name!"],
            "chatdir view: invalid conversation ID \"bad name!\": it may contain only letters, digits, '.', '_' and '-' (allowed: letters, digits, '.', '_', '-'; up to 64; starting with a letter or digit)\nRun `chatdir view --help` for usage."
        ),
        UsageCase(
            ["view", "c1", "--limit", "0"],
            "chatdir view: --limit must be a whole number from 1 to 1000000, not \"0\"\nRun `chatdir view --help` for usage."
        ),
        UsageCase(
            ["view", "c1", "--limit=0"],
            "chatdir view: --limit must be a whole number from 1 to 1000000, not \"0\"\nRun `chatdir view --help` for usage."
        ),
        UsageCase(
            ["view", "c1", "--limit"],
            "chatdir view: --limit needs a value (--limit N)\nRun `chatdir view --help` for usage."),
        UsageCase(
            ["view", "c1", "--colour"],
            "chatdir view: unknown option --colour for `chatdir view`; if it is not meant as an option, put -- before it\nUsage: chatdir view CONV [--limit N] [--before SEQ] [--json]"
        ),
        UsageCase(
            ["view", "c1", "--limt", "5"],
            "chatdir view: unknown option --limt; did you mean `--limit`?\nUsage: chatdir view CONV [--limit N] [--before SEQ] [--json]"
        ),
        UsageCase(
            ["view", "c1", "--folow"],
            "chatdir view: unknown option --folow; did you mean `--follow`?\nUsage: chatdir view CONV --follow [--limit N] [--json]"
        ),
        UsageCase(
            ["search", "-x", "pizza"],
            "chatdir search: unknown option -x for `chatdir search`; if it is not meant as an option, put -- before it\nUsage: chatdir search \(SearchCommand.spec.usage[0])"
        ),
        UsageCase(
            ["search", "-ix", "pizza"],
            "chatdir search: unknown option -x (in -ix) for `chatdir search`; if it is not meant as an option, put -- before it\nUsage: chatdir search \(SearchCommand.spec.usage[0])"
        ),
        UsageCase(
            ["search", "pizza", "-m"], "chatdir search: -m needs a value (-m N)\nRun `chatdir search --help` for usage."
        ),
        UsageCase(
            ["search", "-EF", "pizza"],
            "chatdir search: --regex (-E) and --fixed-strings (-F) do not go together: give one\nRun `chatdir search --help` for usage."
        ),
        UsageCase(
            ["view", "c1", "--json=yes"], "chatdir view: --json takes no value\nRun `chatdir view --help` for usage."),
        UsageCase(
            ["send"], "chatdir send: missing CONV (the conversation to send to)\nRun `chatdir send --help` for usage."),
        UsageCase(
            ["send", "c1", ""],
            "chatdir send: the message text is empty or only white space; write something to send\nRun `chatdir send --help` for usage."
        ),
        UsageCase(
            ["send", "c1", " ", "\t"],
            "chatdir send: the message text is empty or only white space; write something to send\nRun `chatdir send --help` for usage."
        ),
        UsageCase(
            ["send", "c1", "-x", "marks", "the", "spot"],
            "chatdir send: unknown option -x for `chatdir send`; if it is not meant as an option, put -- before it\nUsage: chatdir send CONV TEXT..."
        ),
        UsageCase(
            ["send", "c1", String(repeating: "a", count: 4097)],
            "chatdir send: the message text is 4097 characters long; at most 4096 are allowed\nRun `chatdir send --help` for usage."
        ),
        UsageCase(
            ["send", String(repeating: "c", count: 65), "hi"],
            "chatdir send: invalid conversation ID \"\(String(repeating: "c", count: 65))\": it is 65 bytes long; at most 64 are allowed (allowed: letters, digits, '.', '_', '-'; up to 64; starting with a letter or digit)\nRun `chatdir send --help` for usage."
        ),
        UsageCase(["retry"], "chatdir retry: missing CONV (or --all)\nRun `chatdir retry --help` for usage."),
        UsageCase(
            ["retry", "c1", "not-a-uuid"],
            "chatdir retry: invalid client message ID \"not-a-uuid\": expected a UUID like 6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3\nRun `chatdir retry --help` for usage."
        ),
        UsageCase(
            ["retry", "c1", "6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3", "--all"],
            "chatdir retry: give either ID or --all, not both\nRun `chatdir retry --help` for usage."),
        UsageCase(["cancel"], "chatdir cancel: missing CONV (or --all-failed)\nRun `chatdir cancel --help` for usage."),
        UsageCase(
            ["cancel", "c1"],
            "chatdir cancel: missing ID (the client message ID shown by `chatdir view`), or --all-failed\nRun `chatdir cancel --help` for usage."
        ),
        UsageCase(
            ["cancel", "c1", "not-a-uuid"],
            "chatdir cancel: invalid client message ID \"not-a-uuid\": expected a UUID like 6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3\nRun `chatdir cancel --help` for usage."
        ),
        UsageCase(
            ["cancel", "c1", "6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3", "--all-failed"],
            "chatdir cancel: give either CONV ID or --all-failed [CONV], not both\nRun `chatdir cancel --help` for usage."
        ),
        UsageCase(
            ["status", "c1"], "chatdir status: unexpected argument \"c1\"\nRun `chatdir status --help` for usage."),
        UsageCase(["init"], "chatdir init: missing --user NAME\nRun `chatdir init --help` for usage."),
        UsageCase(
            ["init", "--user", "bad user"],
            "chatdir init: --user: invalid user ID \"bad user\": it may contain only letters, digits, '.', '_' and '-' (allowed: letters, digits, '.', '_', '-'; up to 64; starting with a letter or digit)\nRun `chatdir init --help` for usage."
        ),
        UsageCase(
            ["init", "--user", "alice", "--server", "ftp://x"],
            "chatdir init: --server: \"ftp://x\" is not a server URL; expected http://host:port or https://host:port\nRun `chatdir init --help` for usage."
        ),
        UsageCase(
            ["sync", "--server", "ftp://x"],
            "chatdir sync: --server: \"ftp://x\" is not a server URL; expected http://host:port or https://host:port\nRun `chatdir sync --help` for usage."
        ),
        UsageCase(
            ["seed", "DIR", "--messages", "many"],
            "chatdir seed: --messages must be a whole number from 0 to 100000000, not \"many\"\nRun `chatdir seed --help` for usage."
        ),
        UsageCase(
            ["list", "extra"], "chatdir list: unexpected argument \"extra\"\nRun `chatdir list --help` for usage."),
        UsageCase(
            ["list", "--", "--json"],
            "chatdir list: unexpected argument \"--json\"\nRun `chatdir list --help` for usage."),
        UsageCase(
            ["check", "a", "b"], "chatdir check: unexpected argument \"b\"\nRun `chatdir check --help` for usage."),
        UsageCase(
            ["read"], "chatdir read: missing CONV (the conversation you read)\nRun `chatdir read --help` for usage."),
        UsageCase(
            ["history"],
            "chatdir history: missing CONV (the conversation to fetch)\nRun `chatdir history --help` for usage."),
        UsageCase(
            ["serve"],
            "chatdir serve: missing --data DIR (the server's data directory; make one with `chatdir serve --init DIR --user NAME...`)\nRun `chatdir serve --help` for usage."
        ),
        UsageCase(
            ["serve", "--data", noData, "--faults", "drop-reply=7"],
            "chatdir serve: --faults: drop-reply=\"7\" is not valid; expected a probability from 0 to 1, like 0.1\nRun `chatdir serve --help` for usage."
        ),
        UsageCase(
            ["serve", "--data", noData, "--port", "70000"],
            "chatdir serve: --port must be a whole number from 0 to 65535, not \"70000\"\nRun `chatdir serve --help` for usage."
        ),
    ]

    @Test(
        "a bad command line is a usage error (64) with the exact words, and the store is left as it was",
        arguments: usageCases)
    func usageError(_ row: UsageCase) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.seededStore(directory)
        let before = try snapshotFiles(store)
        let arguments = row.arguments.map { $0 == "DIR" ? directory.file("DIR") : $0 }
        let error = try #require(try Self.usageError(arguments, store: store), "no usage error")
        #expect(error.report == row.stderr)
        #expect(error.exitCode == 64)
        #expect(try snapshotFiles(store) == before)
        #expect(!FileManager.default.fileExists(atPath: directory.file("DIR")))
    }

    @Test(
        "init and sync refuse a server URL with the same words (one parser), and init creates nothing",
        arguments: [
            ("http://127.0.0.1:8080/api", "give only http://host:port, without a path, user or query"),
            ("http://alice:secret@127.0.0.1:8080", "give only http://host:port, without a path, user or query"),
            ("http://127.0.0.1:99999", "the port must be a number from 1 to 65535"),
            ("http://:8080", "no host"),
        ])
    func serverURL(_ url: String, words: String) throws {
        let directory = try TemporaryDirectory()
        let store = try Self.seededStore(directory)
        let created = try #require(
            try Self.usageError(["init", "--user", "alice", "--server", url, directory.file("alice")], store: store))
        #expect(created.report == "chatdir init: --server: \"\(url)\": \(words)\nRun `chatdir init --help` for usage.")
        #expect(!FileManager.default.fileExists(atPath: directory.file("alice")))
        let synced = try #require(try Self.usageError(["sync", "--server", url], store: store))
        #expect(synced.report == "chatdir sync: --server: \"\(url)\": \(words)\nRun `chatdir sync --help` for usage.")
    }

    @Test(
        "every command answers --help and -h with its help, which names its usage and the common options",
        arguments: Chatdir.commands.map { $0.spec.name })
    func help(_ name: String) throws {
        let command = try #require(Chatdir.commands.first { $0.spec.name == name })
        for flag in ["--help", "-h"] {
            let store = Self.storeless.contains(name) ? [] : ["--store", "/x"]
            let parsed = try ParsedArguments(["c1", flag] + store, spec: command.spec)
            #expect(parsed.wantsHelp)
        }
        #expect(command.spec.help.contains("Usage:\n  chatdir \(name) "))
        #expect(command.spec.help.contains("\n  --store DIR  ") == !Self.storeless.contains(name))
        #expect(command.spec.help.contains("\n  --help  "))
    }

    /// The commands that never open a store: `seed DIR`, `demo`, `serve --data DIR`, and the two
    /// that only print (`completion`, `manual`), and git's merge driver (`merge-file`, given its files).
    static let storeless: Set<String> = ["seed", "demo", "serve", "completion", "manual", "merge-file"]

    @Test(
        "a command that opens no store neither lists --store in its help nor takes it",
        arguments: ["seed", "demo", "serve", "completion", "manual", "merge-file"])
    func noStoreOption(_ name: String) throws {
        let command = try #require(Chatdir.commands.first { $0.spec.name == name })
        #expect(!command.spec.help.contains("--store"), "\(command.spec.help)")
        #expect(!command.spec.help.contains("$CHATDIR_STORE"))
        let refused = #expect(throws: UsageError.self) {
            try ParsedArguments(["--store", "/tmp/x"], spec: command.spec)
        }
        #expect(
            refused?.message
                == "unknown option --store for `chatdir \(name)`; if it is not meant as an option, put -- before it")
    }

    @Test("options take --name value and --name=value, the last one wins, -- ends options, - is a positional")
    func parsing() throws {
        let parsed = try ParsedArguments(
            ["--limit", "5", "c1", "--json", "--limit=7", "-", "--", "--before", "-x"], spec: ViewCommand.spec)
        #expect(parsed.command == "view")
        #expect(parsed.value("--limit") == "7")
        #expect(try parsed.integer("--limit", in: 1...10) == 7)
        #expect(parsed.value("--before") == nil)
        #expect(try parsed.integer("--before", in: 1...10) == nil)
        #expect(parsed.flag("--json"))
        #expect(!parsed.flag("--follow"))
        #expect(parsed.positionals == ["c1", "-", "--before", "-x"])
        #expect(!parsed.wantsHelp)
        #expect(try parsed.positional(0, "CONV") == "c1")
        #expect(throws: Never.self) { try parsed.expectAtMost(4) }
    }

    @Test("send takes text that starts with a dash: after --, or a negative number as it is; its help shows --")
    func dashText() throws {
        #expect(
            try ParsedArguments(["c1", "-1", "from", "me"], spec: SendCommand.spec).positionals == [
                "c1", "-1", "from", "me",
            ])
        #expect(
            try ParsedArguments(["c1", "--", "-x", "--store", "y"], spec: SendCommand.spec).positionals == [
                "c1", "-x", "--store", "y",
            ])
        #expect(SendCommand.spec.help.contains("chatdir send c1 -- -x marks the spot"))
        let directory = try TemporaryDirectory()
        let store = try Self.seededStore(directory)
        let output = Output(environment: [:])
        for (arguments, text) in [
            (["c1", "-1", "from", "me"], "-1 from me"), (["c1", "--", "-x", "marks"], "-x marks"),
        ] {
            let parsed = try ParsedArguments(["--store", store] + arguments, spec: SendCommand.spec)
            #expect(try SendCommand.run(Context(output: output, environment: [:], arguments: parsed)) == 0)
            let conversation = try Store.open(at: store).existingConversation(try ConversationID("c1"))
            #expect(try conversation.snapshot(limit: 10).outbox.contains { $0.text == text }, "\(text) was not queued")
        }
    }

    @Test("a value may itself start with a dash or be empty")
    func dashValue() throws {
        let parsed = try ParsedArguments(["--store", "-odd", "c1", "--limit="], spec: ViewCommand.spec)
        #expect(parsed.value("--store") == "-odd")
        #expect(parsed.value("--limit") == "")
        #expect(parsed.positionals == ["c1"])
    }

    /// A store of one conversation, `c1`, with five messages, written in this process.
    static func seededStore(_ directory: TemporaryDirectory) throws -> String {
        var generator = FixtureGenerator(userID: try UserID("alice"))
        generator.conversations = 1
        generator.messagesPerConversation = 5
        let path = directory.file("store")
        _ = try generator.generate(at: path)
        return path
    }

    /// Runs `chatdir arguments…` in this process the way ``Chatdir/run(_:environment:)`` does (the
    /// command named first, its arguments parsed against its spec, then run with `store` as
    /// `$CHATDIR_STORE`) and returns the usage error thrown, or nil when there was none.
    static func usageError(_ arguments: [String], store: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws -> UsageError?
    {
        guard let name = arguments.first, let command = Chatdir.commands.first(where: { $0.spec.name == name }) else {
            Issue.record("no command \(arguments.first ?? "(none)")", sourceLocation: sourceLocation)
            return nil
        }
        do {
            let parsed = try ParsedArguments(Array(arguments.dropFirst()), spec: command.spec)
            let context = Context(
                output: Output(environment: ["NO_COLOR": "1"]), environment: ["CHATDIR_STORE": store], arguments: parsed
            )
            let status = try command.run(context)
            Issue.record(
                "`chatdir \(arguments.joined(separator: " "))` ran and exited \(status)", sourceLocation: sourceLocation
            )
            return nil
        } catch let error as UsageError {
            return error
        }
    }
}
