import ChatDomain
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatCLI

/// `chatdir login` and `chatdir logout` on a Matrix store against a real Synapse, with the real
/// binary: the token saved where `sync` finds it, the device the same on every login, the
/// password nowhere but in the request, the session ended on logout.
@Suite(.ownThreads, .enabled(if: Synapse.isInstalled, Comment(rawValue: Synapse.notInstalled)))
struct MatrixLoginEndToEndTests {
    @Test(
        "login saves a 0600 token sync uses, as one device per store; a wrong password saves nothing; logout ends the session"
    )
    func loginSyncLogout() throws {
        let synapse = try Synapse.start()
        let alice = try synapse.register("alice")
        let bob = try synapse.register("bob")
        let created = try synapse.peer(bob, ["create-room", "--name", "Dinner", "--invite", alice.userID])
        try synapse.peer(alice, ["join", try #require(created["room_id"] as? String)])
        let home = try LoginHome()
        try home.chatdir(["init", "--user", alice.userID, "--server", synapse.url, home.store])

        // A wrong password: the homeserver's refusal, 77, and nothing written anywhere.
        let wrong = try home.passwordFile("wrong", "not-her-password")
        let refused = try home.chatdir(["login", "--password-file", wrong], expecting: 77)
        #expect(refused.stderr.contains("refused the login (403)"), "\(refused.stderr)")
        #expect(refused.stderr.contains("M_FORBIDDEN"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.config), "login wrote into the config directory")
        #expect(!(refused.stdout + refused.stderr).contains("not-her-password"))

        // A password file others can read is refused before any request.
        let open = try home.passwordFile("open", alice.password, mode: 0o644)
        let exposed = try home.chatdir(["login", "--password-file", open], expecting: 77)
        #expect(exposed.stderr.contains("can be read by others (mode 644)"), "\(exposed.stderr)")

        // The right one from a file: one line naming the device and the token file.
        let right = try home.passwordFile("right", alice.password)
        let first = try home.chatdir(["login", "--password-file", right])
        let (device, tokenFile) = try Self.parse(first.stdout, user: alice.userID)
        #expect(device.hasPrefix("CHATDIR") && device.count == 23, "\(device)")
        #expect(tokenFile == home.config + "/chatdir/tokens/\(device).token")
        #expect(!(first.stdout + first.stderr).contains(alice.password))
        #expect(try Self.mode(tokenFile) == 0o600)
        #expect(try Self.mode(home.config + "/chatdir/tokens") == 0o700)
        #expect(try Self.mode(home.config + "/chatdir") == 0o700)
        let config = try String(contentsOfFile: home.config + "/chatdir/config", encoding: .utf8)
        #expect(config == "[store \(home.realStore)]\ntoken-file = \(tokenFile)\n", "\(config)")
        var device1 = alice
        device1.accessToken = try Self.token(tokenFile)
        #expect(try synapse.peer(device1, ["whoami"])["device_id"] as? String == device)

        // sync finds the token through the config: no CHATDIR_TOKEN.
        let synced = try home.chatdir(["sync"])
        #expect(synced.stdout.contains("synced 1 conversation"), "\(synced.stdout)")

        // A second login, the password on standard input: the same device, a new token, still
        // one token-file line.
        let second = try home.chatdir(["login"], input: alice.password + "\n")
        #expect(try Self.parse(second.stdout, user: alice.userID) == (device, tokenFile))
        #expect(!(second.stdout + second.stderr).contains(alice.password))
        #expect(!second.stderr.contains("Password for"), "a prompt where no terminal is: \(second.stderr)")
        var device2 = alice
        device2.accessToken = try Self.token(tokenFile)
        #expect(device2.accessToken != device1.accessToken)
        #expect(try synapse.peer(device2, ["whoami"])["device_id"] as? String == device)
        #expect(try String(contentsOfFile: home.config + "/chatdir/config", encoding: .utf8) == config)

        // logout: the homeserver refuses the token from then on; the file and the line are gone.
        let out = try home.chatdir(["logout"])
        #expect(
            out.stdout
                == "logged out: ended the session of device \(device) on \(synapse.url); removed \(tokenFile) and the token-file line from \(home.config)/chatdir/config\n"
        )
        #expect(!FileManager.default.fileExists(atPath: tokenFile))
        #expect(!(try String(contentsOfFile: home.config + "/chatdir/config", encoding: .utf8)).contains("token-file"))
        #expect(throws: Synapse.Failure.self) { try synapse.peer(device2, ["whoami"]) }
        try home.chatdir(["sync"], expecting: 78)
        try home.chatdir(["sync"], environment: ["CHATDIR_TOKEN": device2.accessToken], expecting: 77)
        let again = try home.chatdir(["logout"])
        #expect(again.stdout == "not logged in from this store: no token in \(tokenFile)\n")

        // A token the homeserver no longer knows: removed all the same, saying so.
        try home.chatdir(["login", "--password-file", right])
        try Data("syt_not_a_token_it_knows\n".utf8).write(to: URL(fileURLWithPath: tokenFile))
        let stale = try home.chatdir(["logout"])
        #expect(stale.stdout.contains("had already ended the session of device \(device)"), "\(stale.stdout)")
        #expect(!FileManager.default.fileExists(atPath: tokenFile))
    }

    @Test(
        "a homeserver that gives refresh tokens: login keeps one, and sync and the live worker go on past the token's lifetime, saving new ones"
    )
    func refreshTokens() throws {
        // Longer than the engine's shortest time between two renewals (10 s).
        let synapse = try Synapse.start(configuration: ["refreshable_access_token_lifetime: 12s"])
        let alice = try synapse.register("alice")
        let bob = try synapse.register("bob")
        let room = try #require(
            try synapse.peer(bob, ["create-room", "--name", "Dinner", "--invite", alice.userID])["room_id"] as? String)
        try synapse.peer(alice, ["join", room])
        let home = try LoginHome()
        try home.chatdir(["init", "--user", alice.userID, "--server", synapse.url, home.store])
        let login = try home.chatdir(["login", "--password-file", try home.passwordFile("right", alice.password)])
        let (device, tokenFile) = try Self.parse(login.stdout, user: alice.userID)
        let refreshFile = home.config + "/chatdir/tokens/\(device).refresh"
        #expect(try Self.mode(refreshFile) == 0o600)
        let firstToken = try Self.token(tokenFile)
        let firstRefresh = try Self.token(refreshFile)
        #expect(!firstRefresh.isEmpty && firstRefresh != firstToken)
        try home.chatdir(["sync"])

        // Past the lifetime the homeserver refuses the token; sync trades the refresh token.
        Thread.sleep(forTimeInterval: 13)
        var expired = alice
        expired.accessToken = firstToken
        #expect(throws: Synapse.Failure.self) { try synapse.peer(expired, ["whoami"]) }
        try synapse.peer(bob, ["send", room, "after the first expiry"])
        let synced = try home.chatdir(["sync"])
        #expect(synced.stdout.contains("1 new message"), "\(synced.stdout) \(synced.stderr)")
        let secondToken = try Self.token(tokenFile)
        #expect(secondToken != firstToken)
        #expect(try Self.token(refreshFile) != firstRefresh)
        #expect(try Self.mode(tokenFile) == 0o600 && Self.mode(refreshFile) == 0o600)
        #expect(try Self.storedTexts(home.store).contains("after the first expiry"))

        // The live worker, across the next expiry: its long poll refused, it renews and goes on.
        let (worker, _) = try ChatdirProcess.startLiveWorker(
            store: home.store, token: "",
            environment: ["HOME": home.directory.path, "XDG_CONFIG_HOME": home.config, "XDG_RUNTIME_DIR": home.runtime])
        defer { worker.terminate() }
        Thread.sleep(forTimeInterval: 13)
        try synapse.peer(bob, ["send", room, "after the second expiry"])
        try waitUntil("the live worker stores bob's message sent after its token expired", timeout: .seconds(120)) {
            try Self.storedTexts(home.store).contains("after the second expiry")
        }
        // The long poll asked before the expiry may bring the message; the next one is refused.
        try waitUntil("the live worker saves a renewed token", timeout: .seconds(60)) {
            try Self.token(tokenFile) != secondToken
        }
        worker.terminate()
        worker.waitUntilExit()

        // Logout with the renewed token ends the device's session, the refresh token with it, and
        // leaves nothing of the login behind. (Synapse takes an expired token for logout too.)
        let out = try home.chatdir(["logout"])
        #expect(out.stdout.contains("ended the session of device \(device)"), "\(out.stdout)")
        for file in [tokenFile, refreshFile, home.config + "/chatdir/tokens/\(device).lock"] {
            #expect(!FileManager.default.fileExists(atPath: file), "\(file) is left")
        }
        var check = alice
        check.accessToken = try synapse.login(alice, deviceID: "CHECK")
        let devices = try #require(try synapse.peer(check, ["devices"])["devices"] as? [[String: Any]])
        #expect(!devices.contains { $0["device_id"] as? String == device }, "\(devices)")
    }

    /// The text of every segment of every conversation in `store`.
    static func storedTexts(_ store: String) throws -> String {
        let conversations = store + "/conversations"
        var text = ""
        for folder in try FileManager.default.contentsOfDirectory(atPath: conversations) where !folder.hasPrefix(".") {
            let messages = conversations + "/" + folder + "/messages"
            let names = (try? FileManager.default.contentsOfDirectory(atPath: messages)) ?? []
            for name in names where name.hasSuffix(".json") {
                text += (try? String(contentsOfFile: messages + "/" + name, encoding: .utf8)) ?? ""
            }
        }
        return text
    }

    @Test(
        "join while another process holds the store and the saved token has expired: the login is renewed and the room joined"
    )
    func joinBesideWorkerRenews() throws {
        let synapse = try Synapse.start(configuration: ["refreshable_access_token_lifetime: 12s"])
        let alice = try synapse.register("alice")
        let bob = try synapse.register("bob")
        let home = try LoginHome()
        try home.chatdir(["init", "--user", alice.userID, "--server", synapse.url, home.store])
        let login = try home.chatdir(["login", "--password-file", try home.passwordFile("right", alice.password)])
        let (_, tokenFile) = try Self.parse(login.stdout, user: alice.userID)
        let firstToken = try Self.token(tokenFile)
        let picnic = try #require(
            try synapse.peer(bob, ["create-room", "--name", "Picnic", "--invite", alice.userID])["room_id"] as? String)
        Thread.sleep(forTimeInterval: 13)

        // The store's writer lock held here, as a running `sync --live` holds it.
        let writer = try StoreWriter(store: try Store.open(at: home.store))
        let joined = try home.chatdir(["join", picnic])
        #expect(joined.stdout.contains("joined \(picnic) as ") && joined.stdout.contains("brings its messages"))
        let renewed = try Self.token(tokenFile)
        #expect(renewed != firstToken)
        var now = alice
        now.accessToken = renewed
        let rooms = try synapse.peer(now, ["joined-rooms"])["joined_rooms"] as? [String] ?? []
        #expect(rooms.contains(picnic), "\(rooms)")
        withExtendedLifetime(writer) {}
    }

    static func parse(_ stdout: String, user: String) throws -> (device: String, tokenFile: String) {
        let pattern = try NSRegularExpression(
            pattern:
                "^logged in as \(NSRegularExpression.escapedPattern(for: user)) \\(device (CHATDIR[0-9A-F]{16})\\); token saved in (/.+)\n$"
        )
        let range = NSRange(stdout.startIndex..., in: stdout)
        let match = try #require(pattern.firstMatch(in: stdout, range: range), "\(stdout)")
        let device = try #require(Range(match.range(at: 1), in: stdout))
        let file = try #require(Range(match.range(at: 2), in: stdout))
        return (String(stdout[device]), String(stdout[file]))
    }

    static func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    static func token(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The refusals and the terminal prompt, which need no homeserver.
@Suite(.ownThreads) struct LoginEndToEndTests {
    @Test("a renewal waits for another process's, but not for ever: a lock held past the wait is named")
    func renewalLockHeld() async throws {
        let home = try LoginHome()
        try home.chatdir(["init", "--user", "@alice:example.org", "--server", "http://127.0.0.1:9", home.store])
        let environment: Environment = ["HOME": home.directory.path, "XDG_CONFIG_HOME": home.config]
        let store = try Store.open(at: home.store)
        let saved = try SavedLogin(store: store, environment: environment)
        try saved.saveToken("expired")
        try saved.saveRefreshToken("refresh")
        let refresher = try #require(
            MatrixTokenRefresher(
                store: store, source: .file(saved.tokenFile), token: "expired",
                server: ServerAddress(host: "127.0.0.1", port: 9), caFile: nil, environment: environment,
                lockWait: .milliseconds(300)))
        // Another process's renewal, stuck: its own open file description holds the lock.
        let holder = try FileDescriptor.openLockFile(saved.renewalLock)
        try holder.lockExclusive(path: saved.renewalLock)
        do {
            _ = try await refresher.renew()
            Issue.record("renewed while another process held the lock")
        } catch let failure as CommandFailure {
            #expect(failure.exitCode == 75)
            #expect(failure.message.contains("another process has held \(saved.renewalLock)"), "\(failure.message)")
        }
        holder.unlock()
        #expect(try saved.savedToken(environment) == "expired")
    }

    @Test("login and logout refuse a wire v1 store, saying what gives its token")
    func wireStore() throws {
        let home = try LoginHome()
        try home.chatdir(["init", "--user", "alice", "--server", "http://127.0.0.1:9", home.store])
        for command in ["login", "logout"] {
            let refused = try home.chatdir([command], input: "secret\n", expecting: 69)
            #expect(
                refused.stderr.hasPrefix(
                    "chatdir \(command): \(command) is for Matrix stores; \(home.store) is alice's wire v1 store, whose token comes from its chatdir server"
                ), "\(refused.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: home.config))
    }

    @Test("login's config edit touches only the store's token-file line, through a symlink, and logout undoes it")
    func configEdit() throws {
        let home = try LoginHome()
        try home.chatdir(["init", "--user", "@alice:example.org", "--server", "http://127.0.0.1:9", home.store])
        let dotfiles = home.directory.file("dotfiles")
        try FileManager.default.createDirectory(atPath: dotfiles, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: home.config + "/chatdir", withIntermediateDirectories: true)
        let original = """
            # mine
            store = ~/store

            [store ~/other]
            token-file = ~/other.token

            [store ~/store]
            ca-file = ~/ca.pem
            server = http://127.0.0.1:9

            """
        try Data(original.utf8).write(to: URL(fileURLWithPath: dotfiles + "/config"))
        try FileManager.default.createSymbolicLink(
            atPath: home.config + "/chatdir/config", withDestinationPath: dotfiles + "/config")
        let environment: Environment = ["HOME": home.directory.path, "XDG_CONFIG_HOME": home.config]
        let saved = try SavedLogin(store: try Store.open(at: home.store), environment: environment)
        #expect(saved.tokenFile == home.config + "/chatdir/tokens/\(saved.deviceID).token")
        let pointed = original.replacingOccurrences(
            of: "[store ~/store]\n", with: "[store ~/store]\ntoken-file = \(saved.tokenFile)\n")
        for _ in 1...2 {
            try saved.pointConfig(try ConfigFile.load(environment), environment: environment)
            #expect(try String(contentsOfFile: dotfiles + "/config", encoding: .utf8) == pointed)
        }
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: home.config + "/chatdir/config") != "")
        #expect(try saved.unpointConfig(try ConfigFile.load(environment), environment: environment))
        #expect(try String(contentsOfFile: dotfiles + "/config", encoding: .utf8) == original)
        #expect(try !saved.unpointConfig(try ConfigFile.load(environment), environment: environment))

        // A store whose token comes from a command: login leaves that alone and says so.
        try Data().write(to: URL(fileURLWithPath: home.directory.file("ca.pem")))
        try Data((original + "token-command = pass show chat\n").utf8).write(
            to: URL(fileURLWithPath: dotfiles + "/config"))
        let refused = try home.chatdir(["login"], input: "secret\n", expecting: 78)
        #expect(
            refused.stderr.contains("config:10 gives this store its token with `token-command`"), "\(refused.stderr)")
    }

    @Test(
        "the prompt reads the password with echo off and puts the terminal back after Enter and after Ctrl-C",
        .enabled(if: Tmux.isAvailable, "tmux is not installed (.ci/run installs it)"))
    func prompt() throws {
        let home = try LoginHome()
        // Nothing listens on the discard port: the login fails after the password is read (75).
        try home.chatdir(["init", "--user", "@alice:example.org", "--server", "http://127.0.0.1:9", home.store])
        let tmux = Tmux()
        defer { tmux.shutDown() }
        for (session, keys, status) in [("typed", ["-l", "hunter2-typed"], "75"), ("stopped", ["C-c"], "130")] {
            let command =
                "env TZ=UTC NO_COLOR=1 CHATDIR_TOKEN= HOME='\(home.directory.path)' XDG_CONFIG_HOME='\(home.config)' '\(ChatdirProcess.executable.path)' login --store '\(home.store)'; echo \"exit $?\"; echo \"terminal $(stty -a | tr ' ;' '\\n\\n' | grep -x -e echo -e -echo)\"; sleep 600"
            try tmux.run(["new-session", "-d", "-s", session, "-x", "160", "-y", "20", command])
            #expect(
                try waitUntil { try tmux.pane(session).contains { $0.hasPrefix("Password for @alice:example.org:") } },
                "\(tmux.screen(session))")
            try tmux.run(["send-keys", "-t", session] + keys)
            if session == "typed" { try tmux.run(["send-keys", "-t", session, "Enter"]) }
            #expect(
                try waitUntil { try tmux.pane(session).contains { $0.hasPrefix("terminal ") } },
                "\(tmux.screen(session))")
            let pane = try tmux.pane(session)
            #expect(pane.contains("exit \(status)"), "\(pane)")
            #expect(!pane.contains { $0.contains("hunter2") }, "the password was echoed: \(pane)")
            #expect(pane.contains("terminal echo"), "echo is still off: \(pane)")
        }
        #expect(!FileManager.default.fileExists(atPath: home.config + "/chatdir/tokens"))
    }
}

/// A home of its own for one test: HOME, a config directory that does not exist yet (login
/// makes it), a runtime directory, and the store's path.
struct LoginHome {
    let directory: TemporaryDirectory
    var store: String { directory.file("store") }
    /// The store's path with symbolic links resolved (a temp directory may be under one).
    var realStore: String { URL(fileURLWithPath: store).resolvingSymlinksInPath().path }
    var config: String { directory.file("config") }
    var runtime: String { directory.file("runtime") }

    init() throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            atPath: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
    }

    /// A file holding `password` on one line, mode `mode`.
    func passwordFile(_ name: String, _ password: String, mode: Int = 0o600) throws -> String {
        let path = directory.file(name + ".password")
        try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    /// Runs `chatdir arguments… --store STORE` (but `init`, which names its directory) in this
    /// home, without CHATDIR_TOKEN, and expects `status`.
    @discardableResult
    func chatdir(
        _ arguments: [String], input: String? = nil, environment extra: [String: String] = [:],
        expecting status: Int32 = 0, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> ChatdirProcess.Result {
        let environment = [
            "HOME": directory.path, "XDG_CONFIG_HOME": config, "XDG_RUNTIME_DIR": runtime, "CHATDIR_TOKEN": "",
        ].merging(extra) { _, new in new }
        let store = arguments.first == "init" ? [] : ["--store", self.store]
        let result = try ChatdirProcess.run(arguments + store, input: input ?? "", environment: environment)
        #expect(
            result.status == status, "chatdir \(arguments.joined(separator: " ")): \(result.stderr)",
            sourceLocation: sourceLocation)
        return result
    }
}
