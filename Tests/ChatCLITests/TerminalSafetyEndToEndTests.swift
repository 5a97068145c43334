import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

/// Text from other members must never reach a terminal as control sequences: the real
/// `chatdir` on a store whose message text, title, `sentAt`, failure reason and a damaged
/// file carry OSC 52, CSI, C1 and bidirectional overrides.
@Suite(.ownThreads) struct TerminalSafetyEndToEndTests {
    /// OSC 52 (set the clipboard), clear screen, a colour, CSI as the C1 byte U+009B, RLO and isolates, DEL, CR.
    static let hostileText =
        "osc \u{1B}]52;c;aGVsbG8=\u{07} clear \u{1B}[2J colour \u{1B}[35mpink c1 \u{9B}2J bidi \u{202E}cba\u{2066}x\u{2069} del \u{7F} cr \r end"
    static let hostileTitle = "Title \u{1B}]0;pwned\u{07} \u{202D}\u{9B}35m"
    static let hostileSentAt = "\u{1B}[35m2026\u{202E}"
    static let hostileReason = "server says \u{1B}[35m\u{9B}2J\u{202A}no"

    /// The scalars a terminal would act on: C0 but newline and tab, DEL, C1, bidi overrides.
    static func unsafeScalars(_ text: String) -> [String] {
        text.unicodeScalars.filter { scalar in
            let value = scalar.value
            return (value < 0x20 && value != 0x0A && value != 0x09) || value == 0x7F || (0x80...0x9F).contains(value)
                || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value)
        }.map { "U+" + String($0.value, radix: 16) }
    }

    /// alice's store: c1 titled hostile, bob's hostile messages (one with a hostile `sentAt`),
    /// one of alice's messages failed with a hostile reason; c2 with a damaged segment whose
    /// bad `senderId` is hostile.
    func hostileStore(in directory: TemporaryDirectory) throws -> (path: String, failedID: ClientMessageID) {
        let path = directory.file("store")
        let created = try ChatdirProcess.run(["init", "--store", path, "--user", "alice"])
        try #require(created.status == 0, "\(created.stderr)")
        let store = try Store.open(at: path)
        let writer = try StoreWriter(store: store)
        let c1 = try ConversationID("c1")
        let alice = try UserID("alice")
        let bob = try UserID("bob")
        try writer.saveInfo(ConversationInfo(title: Self.hostileTitle, members: [alice, bob]), for: c1)
        try writer.save(
            [
                Message(
                    sequence: 1, clientMessageID: .random(), senderID: bob, text: Self.hostileText,
                    sentAt: "2026-11-29T10:00:00.000Z"),
                Message(
                    sequence: 2, clientMessageID: .random(), senderID: bob, text: "sent at a hostile time",
                    sentAt: Self.hostileSentAt),
            ], in: c1)
        let failed = try Outbox(store.conversation(c1)).enqueue("mine")
        try writer.markFailed(failed.clientMessageID, reason: Self.hostileReason, in: c1)

        let c2 = try ConversationID("c2")
        try writer.saveInfo(ConversationInfo(title: "damaged", members: [alice, bob]), for: c2)
        try writer.save(
            [
                Message(
                    sequence: 1, clientMessageID: .random(), senderID: bob, text: "x",
                    sentAt: "2026-11-29T10:00:00.000Z")
            ], in: c2)
        let segments = store.conversation(c2).messagesDirectory
        let name = try #require(
            try FileManager.default.contentsOfDirectory(atPath: segments).first { $0.hasSuffix(".json") })
        let file = segments + "/" + name
        let damaged = try String(contentsOfFile: file, encoding: .utf8)
            .replacingOccurrences(
                of: "\"senderId\":\"bob\"", with: "\"senderId\":\"b\\u001b]52;c;eA==\\u0007\\u009b2J\\u202e\"")
        try Data(damaged.utf8).write(to: URL(fileURLWithPath: file))
        withExtendedLifetime(writer) {}
        return (path, failed.clientMessageID)
    }

    @Test(
        "view, list and the error lines show escape sequences, C1 controls and bidi overrides as visible text, never raw",
        arguments: [["view", "c1"], ["view", "c1", "--limit", "1"], ["list"], ["view", "c2"], ["check", "STORE"]])
    func plainOutput(_ command: [String]) throws {
        let directory = try TemporaryDirectory()
        let store = try hostileStore(in: directory).path
        let arguments =
            command.contains("STORE")
            ? command.map { $0 == "STORE" ? store : $0 } : [command[0], "--store", store] + command.dropFirst()
        let result = try ChatdirProcess.run(arguments)
        #expect(Self.unsafeScalars(result.stdout).isEmpty, "stdout: \(result.stdout.debugDescription)")
        #expect(Self.unsafeScalars(result.stderr).isEmpty, "stderr: \(result.stderr.debugDescription)")
        #expect(!(result.stdout + result.stderr).isEmpty)
    }

    @Test("view shows the hostile text, reason and time with ^[ and \\u{…} notation, in plain output")
    func visibleNotation() throws {
        let directory = try TemporaryDirectory()
        let store = try hostileStore(in: directory).path
        let result = try ChatdirProcess.run(["view", "--store", store, "c1"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout.contains(
                "osc ^[]52;c;aGVsbG8=^G clear ^[[2J colour ^[[35mpink c1 \\u{9b}2J bidi \\u{202e}cba\\u{2066}x\\u{2069} del ^? cr ^M end"
            ),
            "\(result.stdout)")
        #expect(result.stdout.contains("✗ failed: server says ^[[35m\\u{9b}2J\\u{202a}no"), "\(result.stdout)")
        #expect(result.stdout.contains("^[[35m2026\\u{202e}"), "\(result.stdout)")
        let list = try ChatdirProcess.run(["list", "--store", store])
        #expect(list.stdout.contains("Title ^[]0;pwned^G \\u{202d}\\u{9b}35m"), "\(list.stdout)")
    }

    @Test(
        "view --json and list --json keep the exact text, with every control and bidi override escaped as JSON",
        arguments: [["view", "c1", "--json"], ["list", "--json"]])
    func json(_ command: [String]) throws {
        let directory = try TemporaryDirectory()
        let store = try hostileStore(in: directory).path
        let result = try ChatdirProcess.run([command[0], "--store", store] + command.dropFirst())
        #expect(Self.unsafeScalars(result.stdout).isEmpty, "stdout: \(result.stdout.debugDescription)")
        var texts: [String] = []
        for line in result.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            for key in ["text", "title", "error"] { if let text = object[key] as? String { texts.append(text) } }
            if let last = object["lastMessage"] as? [String: Any], let sentAt = last["sentAt"] as? String {
                texts.append(sentAt)
            }
        }
        if command[0] == "view" {
            #expect(texts.contains(Self.hostileText))
            #expect(texts.contains(Self.hostileReason))
        } else {
            #expect(texts.contains(Self.hostileTitle))
            #expect(texts.contains(Self.hostileSentAt))
        }
    }

    @Test(
        "view --follow into a pipe and watch print a hostile message made visible (text) or escaped (JSON), never raw",
        arguments: [["view", "c1", "--follow"], ["view", "c1", "--follow", "--json"], ["watch", "c1"]])
    func following(_ command: [String]) throws {
        let directory = try TemporaryDirectory()
        let store = try hostileStore(in: directory).path
        let follow = try RunningChatdir(command + ["--store", store])
        #expect(waitUntil { !follow.output.isEmpty })
        let writer = try StoreWriter(store: try Store.open(at: store))
        try writer.save(
            [
                Message(
                    sequence: 3, clientMessageID: .random(), senderID: try UserID("bob"),
                    text: "late " + Self.hostileText,
                    sentAt: "2026-11-29T10:05:00.000Z")
            ], in: try ConversationID("c1"))
        #expect(waitUntil { follow.output.contains { $0.contains("late ") } })
        #expect(follow.interrupt() == 0)
        let output = follow.output.joined(separator: "\n")
        #expect(Self.unsafeScalars(output).isEmpty, "\(output.debugDescription)")
        if command.contains("--json") || command[0] == "watch" {
            let late = try #require(follow.output.first { $0.contains("late ") })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(late.utf8)) as? [String: Any])
            #expect(object["text"] as? String == "late " + Self.hostileText)
        }
    }

    @Test(
        "view --follow on a terminal (tmux) writes none of a message's control sequences to the terminal",
        .enabled(if: Tmux.isAvailable, "tmux is not installed (.ci/run installs it)"))
    func terminal() throws {
        let directory = try TemporaryDirectory()
        let store = try hostileStore(in: directory).path
        let raw = directory.file("pane.raw")
        let tmux = Tmux()
        defer { tmux.shutDown() }
        // The pane waits for a key before starting chatdir, so the raw capture sees every byte it writes.
        let command =
            "read go; TZ=UTC TERM=xterm-256color '\(ChatdirProcess.executable.path)' view c1 --follow --store '\(store)'"
        try tmux.run(["new-session", "-d", "-s", "follow", "-x", "160", "-y", "20", "bash", "-c", command])
        try tmux.run(["pipe-pane", "-t", "follow", "-o", "cat >> '\(raw)'"])
        try tmux.run(["send-keys", "-t", "follow", "Enter"])
        #expect(try waitUntil { try tmux.pane().contains { $0.contains("osc ^[]52") } })
        try tmux.run(["send-keys", "-t", "follow", "C-c"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: raw))
        let written = String(decoding: bytes, as: UTF8.self)
        for marker in ["\u{1B}]52", "\u{1B}]0;", "\u{1B}[35m", "\u{9B}", "\u{202E}", "\u{202D}", "\u{2066}", "\u{7F}"] {
            #expect(!written.contains(marker), "raw \(marker.debugDescription) reached the terminal")
        }
        #expect(written.contains("osc "), "the capture saw the frame")
    }
}
