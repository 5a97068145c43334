import ChatTestSupport
import Foundation
import Testing

/// The commands chatdir prints for the user to paste (`retry: chatdir retry carol ID`,
/// `older messages: chatdir view dinner --before 9`) work when pasted: on a store that is not
/// the default one they carry `--store DIR`. Each test pastes the hint with a HOME where no
/// default store exists, so a hint without `--store` fails.
@Suite(.ownThreads) struct PasteHintEndToEndTests {
    /// A copy of SampleData/alice in a temp directory and a HOME without a store.
    struct Setup {
        let directory: TemporaryDirectory
        let store: String
        let environment: [String: String]

        init() throws {
            directory = try TemporaryDirectory()
            store = try copyStore(packageRoot.appendingPathComponent("SampleData/alice"), into: directory, as: "alice")
            let home = directory.file("home")
            try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
            environment = ["HOME": home, "XDG_DATA_HOME": "", "CHATDIR_STORE": ""]
        }

        /// Runs a pasted hint (`chatdir …` split at spaces) the way a shell would.
        func paste(_ hint: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> ChatdirProcess.Result {
            let words = hint.split(separator: " ").map(String.init)
            #expect(words.first == "chatdir", "not a chatdir command: \(hint)", sourceLocation: sourceLocation)
            return try ChatdirProcess.run(Array(words.dropFirst()), environment: environment)
        }
    }

    /// The text between `start` and the next `end` in `line`.
    static func between(_ line: String, _ start: String, _ end: String) -> String? {
        guard let from = line.range(of: start) else { return nil }
        let rest = line[from.upperBound...]
        guard let to = rest.range(of: end) else { return String(rest) }
        return String(rest[..<to.lowerBound])
    }

    @Test("the retry hint of a failed row carries --store, and pasted it queues the message again")
    func retryHint() throws {
        let setup = try Setup()
        let view = try ChatdirProcess.run(["view", "--store", setup.store, "carol"], environment: setup.environment)
        let failed = try #require(view.lines.first { $0.contains("✗ failed") })
        let hint = try #require(Self.between(failed, "(retry: ", ")"))
        #expect(hint.hasPrefix("chatdir retry --store \(setup.store) carol "), "\(hint)")
        let pasted = try setup.paste(hint)
        #expect(pasted.status == 0, "\(hint): \(pasted.stderr)")
        let again = try ChatdirProcess.run(["view", "--store", setup.store, "carol"], environment: setup.environment)
        #expect(!again.stdout.contains("✗ failed"), "\(again.stdout)")
    }

    @Test(
        "on a terminal, the older-messages and retry --all hints carry --store and work when pasted",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script(1) is not installed"))
    func terminalHints() throws {
        let setup = try Setup()
        let command =
            "TZ=UTC NO_COLOR=1 HOME='\(setup.environment["HOME"] ?? "")' XDG_DATA_HOME= CHATDIR_STORE= '\(ChatdirProcess.executable.path)'"
        let dinner = try ChatdirProcess.run(
            ["-qec", command + " view --store '\(setup.store)' dinner --limit 2", "/dev/null"],
            executable: URL(fileURLWithPath: "/usr/bin/script"))
        let older = try #require(
            dinner.stdout.split(whereSeparator: \.isNewline).first { $0.contains("older messages: ") }.map(String.init),
            "\(dinner.stdout)")
        let viewHint = try #require(Self.between(older, "older messages: ", "\u{1B}")).trimmingCharacters(
            in: .whitespaces)
        #expect(viewHint.hasPrefix("chatdir view --store \(setup.store) dinner --before "), "\(viewHint)")
        let scrolled = try setup.paste(viewHint)
        #expect(scrolled.status == 0 && !scrolled.stdout.isEmpty, "\(viewHint): \(scrolled.stderr)")

        let carol = try ChatdirProcess.run(
            ["-qec", command + " view --store '\(setup.store)' carol", "/dev/null"],
            executable: URL(fileURLWithPath: "/usr/bin/script"))
        let status = try #require(
            carol.stdout.split(whereSeparator: \.isNewline).first { $0.contains("failed (") }.map(String.init),
            "\(carol.stdout)")
        let retryHint = try #require(Self.between(status, "failed (", ")"))
        #expect(retryHint == "chatdir retry --store \(setup.store) carol --all")
        let retried = try setup.paste(retryHint)
        #expect(retried.status == 0, "\(retryHint): \(retried.stderr)")
        #expect(!retried.stdout.isEmpty)
    }
}
