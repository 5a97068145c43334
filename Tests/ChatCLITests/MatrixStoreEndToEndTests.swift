import ChatTestSupport
import Foundation
import Testing

/// A Matrix store as a user meets it today through the real binary: `init` makes one, `config`
/// names its protocol, the commands that would talk wire v1 to a homeserver refuse it, and the
/// offline commands work on a room's folder as the Matrix sync will lay it out.
@Suite(.ownThreads) struct MatrixStoreEndToEndTests {
    static let room = "!OGEhHVWSdvArJzumhm:example.org"
    static let folder = "OGEhHVWSdvArJzumhm-42c00ed2fbd96677f252"

    /// A scratch home, so no config file of the machine's is read.
    final class Home {
        let directory: TemporaryDirectory
        var store: String { directory.file("store") }

        init() throws { directory = try TemporaryDirectory() }

        func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ChatdirProcess.Result {
            try ChatdirProcess.run(
                arguments,
                environment: ["HOME": directory.path, "XDG_CONFIG_HOME": directory.file("config")].merging(environment)
                {
                    $1
                })
        }

        /// `chatdir init` of alice's Matrix store at ``store``.
        func initMatrix() throws {
            let made = try run([
                "init", "--store", store, "--user", "@alice:example.org", "--server", "https://matrix.example.org",
            ])
            #expect(made.status == 0, "\(made.stderr)")
            #expect(made.stdout == store + "\n")
        }

        /// A room's folder as the Matrix sync will write it: named by the room ID, with its details.
        func addRoom() throws {
            let directory = store + "/conversations/" + MatrixStoreEndToEndTests.folder
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            let details =
                "{\n\"members\":[\"@alice:example.org\",\"@bob:example.org\"],\n\"roomId\":\"\(MatrixStoreEndToEndTests.room)\",\n\"title\":\"Dinner\"\n}\n"
            try Data(details.utf8).write(to: URL(fileURLWithPath: directory + "/conversation.json"))
            try FileManager.default.setAttributes(
                [.posixPermissions: 0o600], ofItemAtPath: directory + "/conversation.json")
        }
    }

    @Test("init --user @alice:example.org --server URL writes a Matrix manifest, 0600, protocol matrix")
    func initMakesMatrixStore() throws {
        let home = try Home()
        try home.initMatrix()
        let manifest = home.store + "/chatdir.json"
        #expect(
            try String(contentsOfFile: manifest, encoding: .utf8)
                == "{\n\"format\":1,\n\"protocol\":\"matrix\",\n\"segmentSize\":100,\n\"server\":\"https://matrix.example.org\",\n\"userId\":\"@alice:example.org\"\n}\n"
        )
        #expect(try FileManager.default.attributesOfItem(atPath: manifest)[.posixPermissions] as? Int == 0o600)
        let checked = try home.run(["check", "--store", home.store])
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
    }

    @Test(
        "on a terminal, init of a Matrix store suggests login, then sync",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script(1) is not installed"))
    func initOnTerminal() throws {
        let directory = try TemporaryDirectory()
        let fresh = directory.file("fresh")
        #expect(
            try TerminalLinesEndToEndTests.onTerminal([
                "init", "--user", "@alice:example.org", "--server", "https://matrix.example.org", fresh,
            ]) == [
                "created @alice:example.org's Matrix store in \(fresh); next: chatdir login --store \(fresh), then chatdir sync --store \(fresh)"
            ])
    }

    @Test("init of a Matrix user whose server cannot be reached, without --server: exit 75, the way on, nothing made")
    func initWithoutReachableServer() throws {
        let home = try Home()
        // Port 9 on loopback: refused at once, wherever the tests run (no DNS, no internet).
        let result = try home.run(["init", "--store", home.store, "--user", "@alice:127.0.0.1:9"])
        #expect(result.status == 75)
        #expect(
            result.stderr.hasPrefix("chatdir init: could not find @alice:127.0.0.1:9's homeserver: ")
                && result.stderr.contains("https://127.0.0.1:9")
                && result.stderr.hasSuffix(
                    "; pass its URL with --server, like --server https://matrix.example.org\n"),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.store))
    }

    @Test("config names a Matrix store's protocol, in words and in JSON")
    func configShowsProtocol() throws {
        let home = try Home()
        try home.initMatrix()
        let shown = try home.run(["config", "--store", home.store])
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(
            shown.lines.dropFirst(2).prefix(3) == [
                "user         @alice:example.org  (store manifest (chatdir.json))",
                "protocol     matrix  (store manifest (chatdir.json))",
                "server       https://matrix.example.org  (store manifest (chatdir.json))",
            ])
        let json = try home.run(["config", "--json", "--store", home.store])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let setting = object?["protocol"] as? [String: Any]
        #expect(setting?["value"] as? String == "matrix")
        #expect(setting?["from"] as? String == "manifest")
    }

    @Test(
        "create queues a room offline: no room named yet, send waits behind it, list, view and check accept it; members are Matrix user IDs"
    )
    func createQueuesOffline() throws {
        let home = try Home()
        try home.initMatrix()
        let notMatrix = try home.run([
            "create", "--store", home.store, "lunch", "--title", "Lunch", "--member", "bob",
        ])
        #expect(notMatrix.status == 64, "\(notMatrix.stderr)")
        #expect(notMatrix.stderr.hasPrefix("chatdir create: --member: "), "\(notMatrix.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.store + "/conversations/lunch"))

        let created = try home.run([
            "create", "--store", home.store, "lunch", "--title", "Lunch", "--member", "@bob:example.org",
        ])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout == "lunch\n")
        let folder = home.store + "/conversations/lunch"
        #expect(
            try String(contentsOfFile: folder + "/conversation.json", encoding: .utf8)
                == "{\n\"members\":[\"@alice:example.org\",\"@bob:example.org\"],\n\"title\":\"Lunch\"\n}\n")
        let creation = try String(contentsOfFile: folder + "/outbox/create.json", encoding: .utf8)
        #expect(creation.contains(#""members":["@alice:example.org","@bob:example.org"],"state":"pending""#))
        #expect(try home.run(["send", "--store", home.store, "lunch", "noon?"]).status == 0)
        let listed = try home.run(["list", "--store", home.store])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.hasPrefix("lunch  Lunch"), "\(listed.stdout)")
        let viewed = try home.run(["view", "--store", home.store, "lunch"])
        #expect(viewed.status == 0, "\(viewed.stderr)")
        #expect(viewed.stdout.contains("@alice:example.org  noon?"), "\(viewed.stdout)")
        let checked = try home.run(["check", "--store", home.store])
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")

        // Without its queued creation, a Matrix conversation that names no room is damage.
        try FileManager.default.removeItem(atPath: folder + "/outbox/create.json")
        let damaged = try home.run(["check", "--store", home.store])
        #expect(damaged.status == 65)
        #expect((damaged.stdout + damaged.stderr).contains("the field \"roomId\" is missing"), "\(damaged.stdout)")
    }

    @Test("send queues to a room, and list, view and check read the Matrix store")
    func offlineCommandsWork() throws {
        let home = try Home()
        try home.initMatrix()
        try home.addRoom()
        let sent = try home.run(["send", "--store", home.store, Self.folder, "hello from the train"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let outbox = try FileManager.default.contentsOfDirectory(
            atPath: home.store + "/conversations/" + Self.folder + "/outbox")
        #expect(outbox.count == 1)
        let listed = try home.run(["list", "--store", home.store])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(listed.stdout.hasPrefix(Self.folder + "  Dinner"), "\(listed.stdout)")
        let viewed = try home.run(["view", "--store", home.store, Self.folder])
        #expect(viewed.status == 0, "\(viewed.stderr)")
        #expect(viewed.stdout.contains("@alice:example.org  hello from the train"), "\(viewed.stdout)")
        let checked = try home.run(["check", "--store", home.store])
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
    }

    @Test("a wire v1 store refuses a Matrix user ID as a new conversation's member")
    func wireStoreRefusesMatrixMember() throws {
        let home = try Home()
        #expect(try home.run(["init", "--store", home.store, "--user", "alice"]).status == 0)
        let result = try home.run([
            "create", "--store", home.store, "lunch", "--title", "Lunch", "--member", "@bob:example.org",
        ])
        #expect(result.status == 64)
        #expect(
            result.stderr.hasPrefix(
                "chatdir create: --member: \"@bob:example.org\" is a Matrix user ID, but this is a wire v1 store"),
            "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.store + "/conversations/lunch"))
    }

    @Test(
        "leave refuses, naming why and before any request, what names no room to leave: an alias, a bad room ID, a conversation not in the store, one create queued offline, a store of a chatdir server"
    )
    func leaveRefusesWithoutARoom() throws {
        let home = try Home()
        try home.initMatrix()
        let token = ["CHATDIR_TOKEN": "t"]
        func leave(_ target: String, store: String? = nil) throws -> ChatdirProcess.Result {
            try home.run(["leave", "--store", store ?? home.store, target], environment: token)
        }
        let alias = try leave("#lobby:example.org")
        #expect(alias.status == 64, "\(alias.stderr)")
        #expect(alias.stderr.contains("\"#lobby:example.org\" is an alias"), "\(alias.stderr)")
        let badRoom = try leave("!")
        #expect(badRoom.status == 64, "\(badRoom.stderr)")
        let missing = try leave("nowhere")
        #expect(missing.status == 66, "\(missing.stderr)")
        #expect(missing.stderr.contains("nowhere"), "\(missing.stderr)")

        #expect(
            try home.run([
                "create", "--store", home.store, "lunch", "--title", "Lunch", "--member", "@bob:example.org",
            ]).status == 0)
        let queued = try leave("lunch")
        #expect(queued.status == 65, "\(queued.stderr)")
        #expect(queued.stderr.contains("lunch is not on the homeserver yet"), "\(queued.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.store + "/conversations/lunch/outbox/create.json"))

        let wire = home.directory.file("wire")
        #expect(
            try home.run(["init", "--store", wire, "--user", "alice", "--server", "http://127.0.0.1:9"]).status == 0)
        let wireLeave = try leave("dinner", store: wire)
        #expect(wireLeave.status == 69, "\(wireLeave.stderr)")
        #expect(wireLeave.stderr.contains("leave is for Matrix stores"), "\(wireLeave.stderr)")
    }
}
