import ChatTestSupport
import Foundation
import Testing

/// `chatdir serve --init` as someone who installed chatdir and has no checkout: the binary
/// copied alone into a bin directory, run from a directory without SampleData.
@Suite(.ownThreads) struct ServeInitEndToEndTests {
    /// The copied binary, a working directory, and a way to run the binary from there.
    final class Installed {
        let directory: TemporaryDirectory
        let binary: URL
        let work: String

        init() throws {
            directory = try TemporaryDirectory()
            try FileManager.default.createDirectory(atPath: directory.file("bin"), withIntermediateDirectories: true)
            binary = URL(fileURLWithPath: directory.file("bin/chatdir"))
            // cp, not a copy in this process: a write descriptor open here while another test
            // spawns a child would leak into it, and exec of the copy would fail with ETXTBSY.
            let copied = try ChatdirProcess.run(
                [ChatdirProcess.executable.path, binary.path], executable: URL(fileURLWithPath: "/bin/cp"))
            #expect(copied.status == 0, "\(copied.stderr)")
            work = directory.file("work")
            try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        }

        var environment: [String: String] { ["HOME": directory.path, "XDG_CONFIG_HOME": directory.file("config")] }

        /// `chatdir arguments…` run in `work`, to completion.
        func run(_ arguments: [String], token: String? = nil) throws -> ChatdirProcess.Result {
            var environment = self.environment
            if let token { environment["CHATDIR_TOKEN"] = token }
            return try ChatdirProcess.run(
                ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", work, binary.path] + arguments,
                environment: environment, executable: URL(fileURLWithPath: "/bin/sh"))
        }
    }

    static func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    @Test(
        "serve --init makes a data directory with random tokens printed once; serve starts on it and a client syncs with a printed token"
    )
    func initServeAndSync() throws {
        let installed = try Installed()
        #expect(!FileManager.default.fileExists(atPath: installed.work + "/SampleData"))
        let made = try installed.run(["serve", "--init", "data", "--user", "alice", "--user", "bob"])
        #expect(made.status == 0, "\(made.stderr)")
        let rows = made.lines.map { $0.split(separator: " ").map(String.init) }
        #expect(rows.map { $0.first } == ["alice", "bob"], "\(made.stdout)")
        let tokens = Dictionary(uniqueKeysWithValues: rows.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil })
        let alice = try #require(tokens["alice"])
        let bob = try #require(tokens["bob"])
        for token in [alice, bob] {
            #expect(token.count == 64 && token.allSatisfy(\.isHexDigit), "\(token)")
        }
        #expect(alice != bob)
        #expect(made.stderr.contains("shown this once"), "\(made.stderr)")
        let data = installed.work + "/data"
        #expect(try Self.mode(data) == 0o700)
        #expect(try Self.mode(data + "/conversations") == 0o700)
        #expect(try Self.mode(data + "/users.json") == 0o600)
        let users = try String(contentsOfFile: data + "/users.json", encoding: .utf8)
        #expect(users.contains(alice) && users.contains(bob))

        // A second --init never replaces tokens a server already hands out.
        let again = try installed.run(["serve", "--init", "data", "--user", "carol"])
        #expect(again.status == 73, "\(again.stderr)")
        #expect(
            again.stderr.contains("data directory data exists and is not empty: nothing was written"), "\(again.stderr)"
        )
        #expect(again.stdout.isEmpty)
        #expect(try String(contentsOfFile: data + "/users.json", encoding: .utf8) == users)

        // The server, started as the --init output says, from the same directory.
        let output = Pipe()
        let lines = Locked<[String]>([])
        readLines(of: output.fileHandleForReading) { line in lines.withLock { $0.append(line) } }
        let server = try ChatdirProcess.start(
            ["serve", "--data", "data", "--port", "0"], environment: installed.environment,
            launcher: ["/bin/sh", "-c", "cd \"$1\" && shift && exec \"$@\"", "sh", installed.work],
            executable: installed.binary, standardOutput: output)
        defer {
            kill(server.processIdentifier, SIGTERM)
            server.waitUntilExit()
        }
        #expect(waitUntil(timeout: .seconds(120)) { lines.withLock { $0.count >= 2 } || !server.isRunning })
        let printed = lines.withLock { $0 }
        let url = try #require(printed.first, "serve printed nothing")
        #expect(printed.dropFirst().first?.hasPrefix("ready: 2 users, 0 conversations from data") == true, "\(printed)")

        let aliceStore = installed.directory.file("alice-store")
        let bobStore = installed.directory.file("bob-store")
        #expect(try installed.run(["init", "--store", aliceStore, "--user", "alice", "--server", url]).status == 0)
        #expect(
            try installed.run(["create", "--store", aliceStore, "lunch", "--title", "Lunch", "--member", "bob"]).status
                == 0)
        #expect(try installed.run(["send", "--store", aliceStore, "lunch", "noon?"]).status == 0)
        let sync = try installed.run(["sync", "--store", aliceStore], token: alice)
        #expect(sync.status == 0, "\(sync.stdout)\(sync.stderr)")
        #expect(sync.stdout.contains("1 sent"), "\(sync.stdout)")

        #expect(try installed.run(["init", "--store", bobStore, "--user", "bob", "--server", url]).status == 0)
        let refused = try installed.run(["sync", "--store", bobStore], token: alice + "0")
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(try installed.run(["sync", "--store", bobStore], token: bob).status == 0)
        let view = try installed.run(["view", "--store", bobStore, "lunch"])
        #expect(view.stdout.contains("alice  noon?"), "\(view.stdout)")
    }

    @Test(
        "serve --init refuses what it cannot honour, as usage errors, and writes nothing",
        arguments: [
            (["serve", "--init", "data"], "--init needs at least one --user NAME"),
            (["serve", "--init", "data", "--user", "bad name"], "--user: "),
            (["serve", "--init", "data", "--user", "alice", "--user", "alice"], "--user alice is given twice"),
            (
                ["serve", "--init", "data", "--user", "alice", "--port", "8080"],
                "--init only makes a data directory and exits"
            ),
            (["serve", "--data", "data", "--user", "alice"], "--user goes with --init DIR"),
        ])
    func refused(arguments: [String], message: String) throws {
        let installed = try Installed()
        let result = try installed.run(arguments)
        #expect(result.status == 64, "\(result.stderr)")
        #expect(result.stderr.contains(message), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: installed.work + "/data"))
    }
}
