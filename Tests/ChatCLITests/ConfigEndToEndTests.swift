import ChatSystem
import ChatTestSupport
import Foundation
import Testing

/// The config file as a user has it: precedence (flag > environment > config > default) for
/// the store, the server and the token; token commands; `chatdir config`; `config set server`;
/// a 401 answered by running the token command again, in a pass and while `sync --live` runs.
@Suite(.ownThreads) struct ConfigEndToEndTests {
    /// A home of its own: a config directory, and the config file written there.
    struct Home {
        let directory: TemporaryDirectory
        var configDirectory: String { directory.file("config-home") }
        var configFile: String { configDirectory + "/chatdir/config" }
        var environment: [String: String] {
            [
                "XDG_CONFIG_HOME": configDirectory, "HOME": directory.path, "XDG_DATA_HOME": directory.file("data"),
                "CHATDIR_TOKEN": "", "CHATDIR_SERVER": "", "CHATDIR_CA_FILE": "",
            ]
        }

        init() throws {
            directory = try TemporaryDirectory()
            try FileManager.default.createDirectory(
                atPath: configDirectory + "/chatdir", withIntermediateDirectories: true)
        }

        func write(_ config: String) throws {
            try Data(config.utf8).write(to: URL(fileURLWithPath: configFile))
        }

        func run(_ arguments: [String], _ extra: [String: String] = [:]) throws -> ChatdirProcess.Result {
            try ChatdirProcess.run(arguments, environment: environment.merging(extra) { $1 })
        }

        /// `chatdir config --json`, parsed.
        func settings(
            _ arguments: [String] = [], _ extra: [String: String] = [:],
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> [String: [String: Any]] {
            let result = try run(["config", "--json"] + arguments, extra)
            #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
            let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
            return object.compactMapValues { $0 as? [String: Any] }
        }
    }

    func initStore(_ home: Home, _ name: String, server: String? = nil) throws -> String {
        let path = home.directory.file(name)
        let result = try home.run(["init", "--user", "alice", path] + (server.map { ["--server", $0] } ?? []))
        #expect(result.status == 0, "\(result.stderr)")
        return path
    }

    /// Which of flag, environment and config give the setting, and the `from` that must win.
    static let precedence: [(flag: Bool, environment: Bool, config: Bool, from: String)] = [
        (true, true, true, "flag"), (false, true, true, "environment"), (false, false, true, "config"),
        (false, false, false, "default"),
        (true, false, true, "flag"), (true, true, false, "flag"),
    ]

    @Test(
        "store, server, token and CA file: flag beats environment beats config beats the default", arguments: precedence
    )
    func precedenceTable(flag: Bool, environment: Bool, config: Bool, from: String) throws {
        let home = try Home()
        let fromFlag = try initStore(home, "flag", server: "http://127.0.0.1:1")
        let fromEnvironment = try initStore(home, "env", server: "http://127.0.0.1:1")
        let fromConfig = try initStore(home, "conf", server: "http://127.0.0.1:1")
        try home.write(
            """
            \(config ? "store = \(fromConfig)" : "# no default store")
            [store \(fromFlag)]
            server = http://config.example:3
            token-command = echo from-config
            [store \(fromEnvironment)]
            server = http://config.example:3
            token-command = echo from-config
            [store \(fromConfig)]
            \(config ? "server = http://config.example:3\ntoken-command = echo from-config\nca-file = /config/ca.pem" : "# nothing")
            """)
        var arguments: [String] = []
        var extra: [String: String] = [:]
        if flag {
            let tokenFile = home.directory.file("token")
            try Data("t\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
            arguments += [
                "--store", fromFlag, "--server", "http://flag.example:1", "--token-file", tokenFile, "--ca-file",
                "/flag/ca.pem",
            ]
        }
        if environment {
            extra = [
                "CHATDIR_STORE": fromEnvironment, "CHATDIR_SERVER": "http://env.example:2", "CHATDIR_TOKEN": "from-env",
                "CHATDIR_CA_FILE": "/env/ca.pem",
            ]
        }
        let settings = try home.settings(arguments, extra)
        #expect(settings["store"]?["from"] as? String == from)
        let expectedStore = [
            "flag": fromFlag, "environment": fromEnvironment, "config": fromConfig,
            "default": home.directory.file("data") + "/chatdir",
        ][from]
        #expect((settings["store"]?["value"] as? String)?.hasPrefix(expectedStore ?? "?") == true, "\(settings)")
        // Without a setting of its own, the server is the store's, from its manifest.
        #expect(
            settings["server"]?["from"] as? String
                == (from == "default" ? "none" : from == "config" && !config ? "manifest" : from))
        #expect(settings["token"]?["from"] as? String == (from == "default" ? "none" : from))
        if from == "config" {
            #expect(settings["token"]?["value"] as? String == "token-command `echo from-config`")
            #expect(settings["token"]?["where"] as? String == home.configFile + ":10")
        }
        if from == "environment" { #expect(settings["token"]?["value"] as? String == "CHATDIR_TOKEN") }
        #expect(
            settings["server"]?["value"] as? String
                == [
                    "flag": "http://flag.example:1", "environment": "http://env.example:2",
                    "config": "http://config.example:3",
                ][from])
        #expect(settings["caFile"]?["from"] as? String == (from == "default" ? "none" : from))
        #expect(
            settings["caFile"]?["value"] as? String
                == ["flag": "/flag/ca.pem", "environment": "/env/ca.pem", "config": "/config/ca.pem"][from])
    }

    @Test("the token precedence holds for sync itself: CHATDIR_TOKEN beats the config's token-command")
    func tokenPrecedenceOnTheWire() throws {
        let server = try TestServer(sampleData: true)
        let home = try Home()
        let store = try initStore(home, "alice", server: server.url)
        try home.write("store = \(store)\n[store \(store)]\ntoken-command = echo alice-token\n")
        let configured = try home.run(["sync"])
        #expect(configured.status == 0, "\(configured.stderr)")
        #expect(configured.stdout == "synced 2 conversations, 7 new messages, 0 sent\n")
        let environment = try home.run(["sync"], ["CHATDIR_TOKEN": "wrong-token"])
        #expect(environment.status == 77, "\(environment.stderr)")
        for output in [configured.stdout, configured.stderr, environment.stderr] {
            #expect(!output.contains("alice-token"))
        }
    }

    @Test("a token command is done when it exits, even while a process it started in the background holds its output")
    func tokenCommandWithBackgroundChild() throws {
        let server = try TestServer(sampleData: true)
        let home = try Home()
        let store = try initStore(home, "alice", server: server.url)
        let pidFile = home.directory.file("sleeper.pid")
        try home.write("[store \(store)]\ntoken-command = echo alice-token; sleep 300 & echo $! > \(pidFile)\n")
        let result = try home.run(["sync", "--store", store])
        if let text = try? String(contentsOfFile: pidFile, encoding: .utf8),
            let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
        {
            kill(pid, SIGKILL)
        }
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout == "synced 2 conversations, 7 new messages, 0 sent\n")
    }

    @Test("a failing token command: exit 78 naming the command, its status and its stderr; nothing sent")
    func failingTokenCommand() throws {
        let home = try Home()
        let store = try initStore(home, "alice", server: "http://127.0.0.1:9")
        try home.write(
            "[store \(store)]\ntoken-command = echo not-this; echo 'pass: chat/alice is not in the password store.' >&2; exit 1\n"
        )
        let result = try home.run(["sync", "--store", store])
        #expect(result.status == 78)
        #expect(
            result.stderr
                == "chatdir sync: token-command `echo not-this; echo 'pass: chat/alice is not in the password store.' >&2; exit 1` failed with exit status 1: pass: chat/alice is not in the password store.\n"
        )
        try home.write("[store \(store)]\ntoken-command = true\n")
        let empty = try home.run(["sync", "--store", store])
        #expect(empty.status == 78)
        #expect(empty.stderr.contains("printed no token"))
    }

    @Test("a broken config stops every command that opens a store with file:line (78); others run")
    func parseError() throws {
        let home = try Home()
        let store = try initStore(home, "alice")
        try home.write("store = \(store)\n\n[store \(store)]\ntoken = s3cret\n")
        let list = try home.run(["list"])
        #expect(list.status == 78)
        #expect(
            list.stderr.hasPrefix("chatdir list: \(home.configFile):4: tokens never go in the config file"),
            "\(list.stderr)")
        #expect(!list.stderr.contains("s3cret"))
        try home.write("[store \(store)]\ncolour = blue\n")
        let config = try home.run(["config"])
        #expect(config.status == 78)
        #expect(
            config.stderr.contains(
                "\(home.configFile):2: unknown key \"colour\" here; known keys in a [store PATH] section: ca-file, server, token-command, token-file"
            ))
        #expect(try home.run(["completion", "bash"]).status == 0)
    }

    @Test("chatdir config says where each setting comes from, never the token, and runs no token command")
    func showsSources() throws {
        let home = try Home()
        let store = try initStore(home, "alice", server: "http://127.0.0.1:8080")
        let marker = home.directory.file("ran")
        try home.write("# mine\nstore = \(store)\n[store \(store)]\ntoken-command = touch \(marker); echo s3cret\n")
        let result = try home.run(["config"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout == """
                config file  \(home.configFile)
                store        \(store)  (config \(home.configFile):2)
                user         alice  (store manifest (chatdir.json))
                server       http://127.0.0.1:8080  (store manifest (chatdir.json))
                token        token-command `touch \(marker); echo s3cret`  (config \(home.configFile):4)
                ca-file      none

                """)
        #expect(!FileManager.default.fileExists(atPath: marker))
        let environment = try home.run(["config"], ["CHATDIR_TOKEN": "s3cret"])
        #expect(environment.stdout.contains("token        CHATDIR_TOKEN  (environment CHATDIR_TOKEN)\n"))
        #expect(!environment.stdout.contains("s3cret\n") && !environment.stdout.contains(" s3cret "))
    }

    @Test("config set server rewrites chatdir.json with the URL rule of init; a bad URL is a usage error")
    func setServer() throws {
        let home = try Home()
        let store = try initStore(home, "alice", server: "http://127.0.0.1:8080")
        let set = try home.run(["config", "set", "server", "https://chat.example/", "--store", store])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout == "https://chat.example\n")
        let manifest = try String(contentsOfFile: store + "/chatdir.json", encoding: .utf8)
        #expect(manifest.contains("\"server\":\"https://chat.example\""), "\(manifest)")
        #expect(manifest.contains("\"userId\":\"alice\""))
        let settings = try home.settings(["--store", store])
        #expect(settings["server"]?["value"] as? String == "https://chat.example")
        let bad = try home.run(["config", "set", "server", "chat.example", "--store", store])
        #expect(bad.status == 64)
        #expect(bad.stderr.contains("--server:"))
        #expect(try String(contentsOfFile: store + "/chatdir.json", encoding: .utf8) == manifest)
        let other = try home.run(["config", "set", "token", "x", "--store", store])
        #expect(other.status == 64)
    }

    @Test("config set server waits for no worker: a running sync --live holds the store (75)")
    func setServerWhileLive() throws {
        let server = try TestServer(sampleData: true)
        let home = try Home()
        let store = try initStore(home, "alice", server: server.url)
        let (worker, _) = try ChatdirProcess.startLiveWorker(
            store: store, environment: home.environment.merging(["CHATDIR_TOKEN": "alice-token"]) { $1 })
        defer {
            worker.interrupt()
            worker.waitUntilExit()
        }
        #expect(waitUntil { FileManager.default.fileExists(atPath: store + "/conversations/dinner/conversation.json") })
        let set = try home.run(["config", "set", "server", "http://127.0.0.1:9", "--store", store])
        #expect(set.status == 75)
        #expect(set.stderr.contains("stop `chatdir sync --live` first"), "\(set.stderr)")
    }

    /// A server, and a synced store of alice's with `text` waiting in dinner's outbox and a token
    /// command whose first run prints a token the server does not know (an expired one) and
    /// every later run a good one; `count` is the file counting its runs.
    func expiringToken(sending text: String) throws -> (server: TestServer, home: Home, store: String, count: String) {
        let server = try TestServer(sampleData: true)
        let home = try Home()
        let store = try initStore(home, "alice", server: server.url)
        #expect(try home.run(["sync", "--store", store], ["CHATDIR_TOKEN": "alice-token"]).status == 0)
        #expect(try home.run(["send", "--store", store, "dinner", text]).status == 0)
        let count = home.directory.file("runs")
        let script = home.directory.file("token.sh")
        try Data(
            "n=$(cat \(count) 2>/dev/null || echo 0); n=$((n + 1)); echo $n > \(count); if [ $n = 1 ]; then echo expired-token; else echo alice-token; fi\n"
                .utf8
        )
        .write(to: URL(fileURLWithPath: script))
        try home.write("[store \(store)]\ntoken-command = sh \(script)\n")
        return (server, home, store, count)
    }

    @Test("a 401 runs the token command again: the live worker reconnects with the new token and delivers")
    func refreshAfter401() throws {
        let (server, home, store, count) = try expiringToken(sending: "after the refresh")
        defer { withExtendedLifetime(server) {} }
        let (worker, stderr) = try ChatdirProcess.startLiveWorker(
            store: store, token: "", environment: home.environment)
        let log = Lock("")
        readLines(of: stderr.fileHandleForReading) { line in log.withLock { $0 += line + "\n" } }
        defer {
            worker.interrupt()
            worker.waitUntilExit()
        }
        #expect(
            waitUntil(timeout: .seconds(60)) { log.withLock { $0 }.contains("dinner: delivered 1") },
            "\(log.withLock { $0 })")
        #expect(log.withLock { $0 }.contains("the token was refused; using the new one from its source"))
        #expect(worker.isRunning)
        #expect(try String(contentsOfFile: count, encoding: .utf8) == "2\n")
        let view = try home.run(["view", "--store", store, "dinner"])
        #expect(
            view.lines.last?.contains("after the refresh") == true && view.lines.last?.hasSuffix("✓ sent") == true,
            "\(view.stdout)")
        #expect(!log.withLock { $0 }.contains("alice-token") && !log.withLock { $0 }.contains("expired-token"))
    }

    @Test(
        "a one-pass sync refused (401) runs the token command again and syncs with the new token; refused again, it exits 77"
    )
    func onePassRenewal() throws {
        let (server, home, store, count) = try expiringToken(sending: "after the renewal")
        defer { withExtendedLifetime(server) {} }
        let synced = try home.run(["sync", "--store", store])
        #expect(synced.status == 0, "\(synced.stdout) \(synced.stderr)")
        #expect(synced.stdout == "synced 2 conversations, 0 new messages, 1 sent\n", "\(synced.stdout)")
        #expect(synced.stderr.contains("the token was refused; using the new one from its source"), "\(synced.stderr)")
        #expect(try String(contentsOfFile: count, encoding: .utf8) == "2\n")
        let view = try home.run(["view", "--store", store, "dinner"])
        #expect(
            view.lines.last?.contains("after the renewal") == true && view.lines.last?.hasSuffix("✓ sent") == true,
            "\(view.stdout)")
        #expect(
            ![synced.stdout, synced.stderr].contains { $0.contains("alice-token") || $0.contains("expired-token") })

        // A source that gives the refused token again: one more fetch, no second pass, 77.
        try home.write("[store \(store)]\ntoken-command = echo expired-token\n")
        let refused = try home.run(["sync", "--store", store])
        #expect(refused.status == 77, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.contains("its source gives the same one again"), "\(refused.stderr)")
    }

    @Test("a token command that keeps giving a refused token: the live worker stops with 77")
    func refusedAgain() throws {
        let server = try TestServer(sampleData: true)
        let home = try Home()
        let store = try initStore(home, "alice", server: server.url)
        try home.write("[store \(store)]\ntoken-command = echo expired-token\n")
        let (worker, _) = try ChatdirProcess.startLiveWorker(store: store, token: "", environment: home.environment)
        #expect(waitUntil(timeout: .seconds(60)) { !worker.isRunning })
        if worker.isRunning { worker.interrupt() }
        worker.waitUntilExit()
        #expect(worker.terminationStatus == 77)
    }
}
