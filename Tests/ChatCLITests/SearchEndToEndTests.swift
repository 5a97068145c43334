import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@Suite(.ownThreads) struct SearchEndToEndTests {
    let sample = packageRoot.appendingPathComponent("SampleData/alice")

    func search(_ arguments: [String], environment: [String: String] = [:]) throws -> ChatdirProcess.Result {
        try ChatdirProcess.run(["search", "--store", sample.path] + arguments, environment: environment)
    }

    @Test("hits across conversations, in ID order and oldest first, each with place, time, sender and text; exit 0")
    func hits() throws {
        let result = try search(["window"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.lines == [
                "bob:4  2026-11-29 10:02  alice  I'll grab a table by the window",
                "bob:7  2026-11-29 10:41  alice  Found the window table, back left",
            ])
        #expect(try search(["the", "dinner"]).lines.allSatisfy { $0.hasPrefix("dinner:") })
    }

    @Test("nothing found is exit 1 with nothing printed, as grep")
    func nothing() throws {
        let result = try search(["no such words anywhere"])
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty && result.stderr.isEmpty)
        #expect(try search(["window", "carol"]).status == 1)
    }

    @Test("fixed strings by default: regex characters are themselves; --regex makes them a pattern")
    func fixedThenRegex() throws {
        #expect(try search(["^Booked"]).status == 1)
        let regex = try search(["--regex", "^Booked: [A-Z][a-z]+day"])
        #expect(regex.lines == [#"dinner:8  2026-11-29 12:20  alice  Booked: Friday 20:00, under "Alice""#])
    }

    @Test("an invalid regex is a usage error naming the pattern and regcomp's reason")
    func invalidRegex() throws {
        let result = try search(["--regex", "(unclosed"])
        #expect(result.status == 64)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr.hasPrefix(
                #"chatdir search: PATTERN "(unclosed" is not a valid extended regular expression: "#),
            "\(result.stderr)")
        #expect(result.stderr.contains("Unmatched ( or \\("))
    }

    @Test("--limit stops after N hits; --ignore-case folds letters", arguments: [1, 2, 3])
    func limit(_ limit: Int) throws {
        let all = try search(["--ignore-case", "THE"])
        #expect(all.lines.count > 3)
        let limited = try search(["--ignore-case", "THE", "--limit", String(limit)])
        #expect(limited.status == 0)
        #expect(limited.lines == Array(all.lines.prefix(limit)))
    }

    @Test(
        "grep's letters work as grep users type them, alone and combined, and print what the long options print",
        arguments: [
            (["-i", "pizza"], ["--ignore-case", "pizza"]),
            (["-ic", "PIZZA"], ["--ignore-case", "--count", "PIZZA"]),
            (["-ci", "PIZZA"], ["--ignore-case", "--count", "PIZZA"]),
            (["-E", "^Booked: [A-Z]"], ["--regex", "^Booked: [A-Z]"]),
            (["-iE", "^booked"], ["--ignore-case", "--regex", "^booked"]),
            (["-F", "^Booked"], ["^Booked"]),
            (["-im", "2", "the"], ["--ignore-case", "--limit", "2", "the"]),
            (["-im2", "the"], ["--ignore-case", "--limit", "2", "the"]),
            (["the", "-m", "1", "dinner"], ["the", "--limit", "1", "dinner"]),
        ])
    func shortOptions(_ short: [String], _ long: [String]) throws {
        let typed = try search(short)
        let spelled = try search(long)
        #expect(typed.status == spelled.status && typed.stderr == spelled.stderr)
        #expect(typed.stdout == spelled.stdout)
        #expect(!typed.stdout.isEmpty || typed.status == 1, "\(typed.stderr)")
    }

    @Test("-ic pizza counts case-insensitively, CONV:N per conversation, as grep -ic")
    func shortCount() throws {
        let result = try search(["-ic", "PIZZA"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.lines.count == 3, "\(result.stdout)")
        #expect(result.lines.allSatisfy { $0.split(separator: ":").count == 2 })
        #expect(try search(["-c", "PIZZA"]).stdout != result.stdout, "-i made no difference")
    }

    @Test("--sender and --since/--until narrow the hits; a date alone is its midnight")
    func filters() throws {
        let alice = try search(["the", "--sender", "alice"])
        #expect(!alice.lines.isEmpty && alice.lines.allSatisfy { $0.contains("  alice  ") })
        let late = try search(["the", "--since", "2026-11-29 12:30"])
        #expect(
            late.lines == [
                "carol:1  2026-11-29 17:50  carol  Are you coming to the climbing gym tonight?",
                "dinner:11  2026-11-29 12:40  alice  Moved it to 20:30, see you all there",
                "dinner:12  2026-11-29 12:41  alice  Bring cash, they don't take cards",
            ])
        // --until is exclusive: 12:40 itself is left out.
        let window = try search(["the", "--since", "2026-11-29T12:00", "--until", "2026-11-29T12:40"])
        #expect(window.lines == ["dinner:4  2026-11-29 12:06  erin  Same, anywhere near the station"])
        #expect(try search(["the", "--until", "2026-11-29"]).status == 1)
        #expect(try search(["the", "--since", "2026-11-30"]).status == 1)
    }

    @Test(
        "--count prints CONV:N for every conversation searched, the same N as the hits printed, through the fast scan or the filters"
    )
    func count() throws {
        for extra in [[], ["--sender", "bob"], ["--ignore-case"], ["--regex"]] {
            let hits = try search(["e"] + extra).lines
            let counted = try search(["e", "--count"] + extra)
            #expect(counted.status == 0)
            let expected = ["bob", "carol", "dinner"].map { id in
                "\(id):\(hits.filter { $0.hasPrefix(id + ":") }.count)"
            }
            #expect(counted.lines == expected, "\(extra)")
        }
        let none = try search(["no such words here", "--count", "dinner"])
        #expect(none.status == 1)
        #expect(none.lines == ["dinner:0"])
        let both = try search(["e", "--count", "--json"])
        #expect(both.status == 64)
        #expect(both.stderr.contains("--count and --json do not go together"))
    }

    @Test("--json prints one object per hit that jq can read")
    func json() throws {
        let result = try search(["window", "--json"])
        let rows = try result.lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(rows.map { $0["conversationId"] as? String } == ["bob", "bob"])
        #expect(rows.map { $0["sequence"] as? Int } == [4, 7])
        #expect(rows[0]["senderId"] as? String == "alice")
        #expect(rows[0]["sentAt"] as? String == "2026-11-29T10:02:00.000Z")
        #expect(rows[0]["text"] as? String == "I'll grab a table by the window")
    }

    @Test(
        "the match is highlighted on a terminal, and not with NO_COLOR or in a pipe",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"),
            "needs script(1) from util-linux for a terminal"))
    func highlight() throws {
        let command = "\(ChatdirProcess.executable.path) search --store \(sample.path) window bob --limit 1"
        let terminal = try ChatdirProcess.run(
            ["-qec", command, "/dev/null"], environment: ["NO_COLOR": "", "TERM": "xterm"],
            executable: URL(fileURLWithPath: "/usr/bin/script"))
        #expect(terminal.status == 0, "\(terminal.stderr)")
        #expect(terminal.stdout.contains("by the \u{1B}[31mwindow\u{1B}[0m"), "\(terminal.stdout.debugDescription)")
        let noColor = try ChatdirProcess.run(
            ["-qec", command, "/dev/null"], environment: ["NO_COLOR": "1", "TERM": "xterm"],
            executable: URL(fileURLWithPath: "/usr/bin/script"))
        #expect(!noColor.stdout.contains("\u{1B}"), "\(noColor.stdout.debugDescription)")
        #expect(noColor.stdout.contains("by the window"))
        let pipe = try search(["window", "bob", "--limit", "1"], environment: ["NO_COLOR": "", "TERM": "xterm"])
        #expect(!pipe.stdout.contains("\u{1B}"))
    }

    @Test("another member's control characters are shown, not obeyed, in text; kept exact in JSON")
    func terminalSafe() throws {
        let directory = try TemporaryDirectory()
        let store = try copyStore(sample, into: directory)
        let hostile = "pwn\u{1B}]52;c;ZXZpbA==\u{07} here \u{202E}txt"
        try StoreWriter(store: try Store.open(at: store)).save(
            [
                Message(
                    sequence: 20, clientMessageID: .random(), senderID: try UserID("bob"),
                    text: hostile, sentAt: "2026-11-30T09:00:00.000Z")
            ], in: try ConversationID("bob"))
        let result = try ChatdirProcess.run(["search", "--store", store, "pwn"])
        #expect(result.lines == [#"bob:20  2026-11-30 09:00  bob  pwn^[]52;c;ZXZpbA==^G here \u{202e}txt"#])
        let json = try ChatdirProcess.run(["search", "--store", store, "pwn", "--json"])
        #expect(!json.stdout.contains("\u{1B}"))
        let row = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(row["text"] as? String == hostile)
    }

    @Test(
        "bad command lines are usage errors naming the argument",
        arguments: [
            ([], "missing PATTERN (the text to look for)"),
            ([""], "PATTERN is empty; give some text to look for"),
            (["", "--regex"], "PATTERN is empty; give some text to look for"),
            (["x", "--limit", "0"], "--limit must be a whole number from 1 to 2147483647, not \"0\""),
            (
                ["x", "--since", "yesterday"],
                "--since: \"yesterday\" is not a date; use one of 2026-11-29, 2026-11-29T12:20, 2026-11-29 12:20, 12:20 (today), or 2026-11-29T12:20:07Z (UTC)"
            ),
            (["x", "--sender", "no body"], "--sender: "),
            (["x", "bad/id"], "invalid conversation ID \"bad/id\""),
        ])
    func usage(_ arguments: [String], _ message: String) throws {
        let result = try search(arguments)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("chatdir search: " + message), "\(result.stderr)")
    }

    @Test(
        "a damaged segment stops the search with exit 65 and the file and line, fixed or folded",
        arguments: [
            (
                "truncated-segment",
                "conversations/dinner/messages/0000000011-0000000020.json:3: the file ends before the closing ']'"
            ),
            (
                "wrong-type",
                "conversations/bob/messages/0000000001-0000000010.json:4: \"sequence\" must be a whole number"
            ),
            ("duplicate-sequence", "conversations/bob/messages/0000000001-0000000010.json:5: sequence 3 appears twice"),
            (
                "sequence-in-wrong-file",
                "conversations/bob/messages/0000000001-0000000010.json:9: sequence 18 does not belong in this file"
            ),
        ])
    func damaged(_ fixture: String, _ message: String) throws {
        let store = packageRoot.appendingPathComponent("Tests/ChatCLITests/Fixtures/\(fixture)").path
        for flags in [[], ["--ignore-case"]] {
            let result = try ChatdirProcess.run(["search", "--store", store, "e"] + flags)
            #expect(result.status == 65, "\(flags)")
            #expect(result.stderr.hasPrefix("chatdir search: " + message), "\(flags): \(result.stderr)")
        }
    }

    @Test("a conversation that is not there is exit 66, naming it")
    func unknownConversation() throws {
        let result = try search(["x", "nosuch"])
        #expect(result.status == 66)
        #expect(result.stderr.contains("\"nosuch\""))
    }
}
