import ChatTestSupport
import Foundation
import Testing

/// On a terminal, `init`, `send` and `read` print one line that says what happened and what
/// comes next; in a pipe they print the bare result scripts read (the path, the ID, the sequence).
@Suite(.ownThreads) struct TerminalLinesEndToEndTests {
    /// Runs `chatdir arguments` with its standard output on a terminal (script(1)); the lines it printed.
    static func onTerminal(_ arguments: [String]) throws -> [String] {
        let quoted = arguments.map { "'" + $0 + "'" }.joined(separator: " ")
        let command = "TZ=UTC NO_COLOR=1 '\(ChatdirProcess.executable.path)' \(quoted)"
        let result = try ChatdirProcess.run(
            ["-qec", command, "/dev/null"], executable: URL(fileURLWithPath: "/usr/bin/script"))
        return result.stdout.replacingOccurrences(of: "\r", with: "").split(separator: "\n").map(String.init)
    }

    @Test(
        "init, send and read say on a terminal what they did and what comes next, and stay bare in a pipe",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script(1) is not installed"))
    func oneLine() throws {
        let directory = try TemporaryDirectory()
        let fresh = directory.file("fresh")
        #expect(
            try Self.onTerminal(["init", "--user", "alice", "--server", "http://127.0.0.1:9", fresh])
                == ["created alice's store in \(fresh); next: chatdir sync --store \(fresh) (with CHATDIR_TOKEN set)"])
        let bare = directory.file("bare")
        #expect(try ChatdirProcess.run(["init", "--user", "alice", bare]).lines == [bare])

        let store = try copyStore(packageRoot.appendingPathComponent("SampleData/alice"), into: directory, as: "alice")
        let sent = try Self.onTerminal(["send", "--store", store, "dinner", "on my way"])
        #expect(
            sent.count == 1 && sent[0].hasPrefix("queued ")
                && sent[0].hasSuffix(" in dinner; it goes out with the next sync"), "\(sent)")
        let id = sent.first?.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        #expect(
            try ChatdirProcess.run(["view", "--store", store, "dinner", "--json"]).stdout.contains(id) && id.count == 36
        )
        #expect(try ChatdirProcess.run(["send", "--store", store, "dinner", "bare"]).lines.first?.count == 36)

        let read = try Self.onTerminal(["read", "--store", store, "dinner", "--up-to", "3"])
        #expect(read == ["marked dinner read up to 3; the next sync tells the others"], "\(read)")
        #expect(try ChatdirProcess.run(["read", "--store", store, "dinner"]).lines.count == 1)
    }

    @Test(
        "create on a terminal says a Matrix room's folder will be renamed once the homeserver has it; a wire v1 store's line says nothing of it",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script(1) is not installed"))
    func createLine() throws {
        let directory = try TemporaryDirectory()
        let matrix = directory.file("matrix")
        #expect(
            try ChatdirProcess.run([
                "init", "--user", "@alice:example.org", "--server", "https://matrix.example.org", matrix,
            ]).status == 0)
        let room = try Self.onTerminal([
            "create", "--store", matrix, "lunch", "--title", "Lunch", "--member", "@bob:example.org",
        ])
        #expect(
            room == [
                "started lunch with @bob:example.org; the next sync creates it on the server (send to it now: chatdir send --store \(matrix) lunch TEXT); once the homeserver has the room, the folder is renamed to the room's (sync prints the new name)"
            ], "\(room)")
        let wire = directory.file("wire")
        #expect(try ChatdirProcess.run(["init", "--user", "alice", wire]).status == 0)
        let started = try Self.onTerminal(["create", "--store", wire, "lunch", "--title", "Lunch", "--member", "bob"])
        #expect(
            started == [
                "started lunch with bob; the next sync creates it on the server (send to it now: chatdir send --store \(wire) lunch TEXT)"
            ], "\(started)")
    }
}
