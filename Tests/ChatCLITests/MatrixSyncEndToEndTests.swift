import ChatTestSupport
import Foundation
import Synchronization
import Testing

/// `chatdir sync` on a Matrix store against a real Synapse, with the real binary: bob (the
/// standard-library peer, no chatdir code) fills rooms; alice's chatdir syncs, sends, reads.
@Suite(.ownThreads, .enabled(if: Synapse.isInstalled, Comment(rawValue: Synapse.notInstalled)))
struct MatrixSyncEndToEndTests {
    /// A homeserver with alice and bob, a room "Dinner" bob made and alice joined.
    struct Homeserver {
        let synapse: Synapse
        let alice: Synapse.User
        let bob: Synapse.User
        let room: String
        let directory: TemporaryDirectory

        static func start() throws -> Homeserver {
            let synapse = try Synapse.start()
            let alice = try synapse.register("alice")
            let bob = try synapse.register("bob")
            let created = try synapse.peer(bob, ["create-room", "--name", "Dinner", "--invite", alice.userID])
            let room = try #require(created["room_id"] as? String)
            try synapse.peer(alice, ["join", room])
            return Homeserver(synapse: synapse, alice: alice, bob: bob, room: room, directory: try TemporaryDirectory())
        }

        /// A new store of alice's at `name` (its server the homeserver, or `server` in front of
        /// it), and a token of a device of her own for it.
        func device(_ name: String, server: String? = nil) throws -> Device {
            let store = directory.file(name)
            let made = try ChatdirProcess.run(
                ["init", "--store", store, "--user", alice.userID, "--server", server ?? synapse.url])
            #expect(made.status == 0, "\(made.stderr)")
            let token = try synapse.login(alice, deviceID: "CHATDIR-" + name.uppercased())
            let runtime = directory.file(name + "-runtime")
            try FileManager.default.createDirectory(
                atPath: runtime, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            return Device(store: store, token: token, runtime: runtime)
        }

        /// A room bob makes, named `name`, inviting alice; its ID.
        func roomInvitingAlice(_ name: String) throws -> String {
            try #require(
                try synapse.peer(bob, ["create-room", "--name", name, "--invite", alice.userID])["room_id"] as? String)
        }

        /// The bodies and client message IDs of the room's messages, oldest first, as bob's client sees them.
        func messages(_ room: String? = nil) throws -> [(body: String, cmid: String?)] {
            let answer = try synapse.peer(bob, ["messages", room ?? self.room])
            let events = try #require(answer["events"] as? [[String: Any]])
            return events.map {
                let content = $0["content"] as? [String: Any] ?? [:]
                return (content["body"] as? String ?? "", content["org.chatdir.cmid"] as? String)
            }
        }
    }

    struct Device {
        let store: String
        let token: String
        let runtime: String

        @discardableResult
        func run(
            _ arguments: [String], expecting status: Int32 = 0, environment: [String: String] = [:],
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> ChatdirProcess.Result {
            let result = try ChatdirProcess.run(
                arguments + ["--store", store],
                environment: environment.merging(["CHATDIR_TOKEN": token, "XDG_RUNTIME_DIR": runtime]) { $1 })
            #expect(
                result.status == status, "chatdir \(arguments.joined(separator: " ")): \(result.stderr)",
                sourceLocation: sourceLocation)
            return result
        }

        /// The one conversation folder whose conversation.json has `title`.
        func conversation(titled title: String) throws -> String {
            let root = store + "/conversations"
            for name in try FileManager.default.contentsOfDirectory(atPath: root) {
                let info = try String(contentsOfFile: root + "/" + name + "/conversation.json", encoding: .utf8)
                if info.contains("\"title\":\"\(title)\"") { return name }
            }
            throw Failure("no conversation titled \(title) in \(root)")
        }

        /// Every file under `conversations/` but the outboxes (device-local), with its bytes.
        func sharedFiles() throws -> [String: Data] {
            let root = store + "/conversations"
            var files: [String: Data] = [:]
            let enumerator = FileManager.default.enumerator(atPath: root)
            while let path = enumerator?.nextObject() as? String {
                guard !path.contains("/outbox"), !path.hasSuffix("/.caught-up") else { continue }
                var isDirectory: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory)
                if !isDirectory.boolValue { files[path] = FileManager.default.contents(atPath: root + "/" + path) }
            }
            return files
        }
    }

    /// Live workers of one device, one after the other, every one's log in one file: what a
    /// failure's message shows of kill after kill.
    final class WorkerLog {
        let device: Device
        let path: String
        private let handle: FileHandle

        init(_ device: Device, in directory: TemporaryDirectory) throws {
            self.device = device
            path = directory.file("workers.log")
            _ = FileManager.default.createFile(atPath: path, contents: nil)
            handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        }

        deinit { try? handle.close() }

        func start() throws -> TestProcess {
            try ChatdirProcess.start(
                ["sync", "--live", "--store", device.store],
                environment: ["CHATDIR_TOKEN": device.token, "XDG_RUNTIME_DIR": device.runtime], standardError: handle)
        }

        /// The log's last 3,000 characters.
        var tail: String { String(((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").suffix(3000)) }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    @Test(
        "a first sync stores the rooms' history; sends go once with their IDs; a receipt reads; encrypted rooms are refused; a second device holds the same bytes"
    )
    func syncSendReadTwoDevices() throws {
        let server = try Homeserver.start()
        try server.synapse.peer(server.bob, ["send-many", server.room, "25", "--prefix", "hello"])
        try server.synapse.peer(server.bob, ["send", server.room, "waves", "--msgtype", "m.emote"])
        let secret = try server.synapse.peer(server.bob, ["send", server.room, "the door code is 4711"])
        try server.synapse.peer(server.bob, ["redact", server.room, try #require(secret["event_id"] as? String)])
        let encrypted = try server.synapse.peer(
            server.bob, ["create-room", "--name", "Vault", "--encrypted", "--invite", server.alice.userID])
        let vault = try #require(encrypted["room_id"] as? String)
        try server.synapse.peer(server.alice, ["join", vault])

        // The first sync: both rooms listed, the plain one's whole history stored.
        let laptop = try server.device("laptop")
        let first = try laptop.run(["sync"])
        #expect(
            first.stdout.contains("synced 2 conversations (1 end-to-end encrypted, not supported)"), "\(first.stdout)")
        #expect(first.stdout.contains("27 new messages"), "\(first.stdout)")
        let dinner = try laptop.conversation(titled: "Dinner")
        let vaultRow = try laptop.run(["list"]).lines.first { $0.contains("Vault") }
        #expect(vaultRow?.contains("(end-to-end encrypted, not supported)") == true, "\(vaultRow ?? "no Vault row")")
        let listed = try laptop.run(["list", "--json"]).lines
        #expect(listed.filter { $0.contains(#""encrypted":true"#) }.count == 1, "\(listed)")
        let view = try laptop.run(["view", dinner, "--limit", "100"])
        let rows = view.lines
        #expect(rows.count == 27, "\(view.stdout)")
        #expect(rows.first?.hasSuffix("@bob:localhost  hello 1") == true, "\(view.stdout)")
        #expect(rows.dropLast().last?.contains("* waves") == true, "\(view.stdout)")
        #expect(rows.last?.contains("(message deleted)") == true, "\(view.stdout)")
        let segments = try laptop.sharedFiles().filter { $0.key.contains("/messages/") }
        let leaked = segments.mapValues { String(decoding: $0, as: UTF8.self) }.filter { $0.value.contains("4711") }
        #expect(leaked.isEmpty, "redacted text stored: \(leaked)")

        // Sends, offline first: one event each, carrying its client message ID.
        let queued = [
            try laptop.run(["send", dinner, "On my way"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines),
            try laptop.run(["send", dinner, "Ten minutes"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines),
        ]
        let sent = try laptop.run(["sync"])
        #expect(sent.stdout.contains("2 sent"), "\(sent.stdout)")
        let onServer = try server.messages().suffix(2)
        #expect(onServer.map(\.body) == ["On my way", "Ten minutes"])
        #expect(onServer.map(\.cmid) == queued)
        #expect(try laptop.run(["sync"]).stdout.contains("0 sent"))
        #expect(try server.messages().count == 29, "nothing sent twice")

        // Bob reads alice's last message: ✓✓ read on her screen (never delivered: Matrix has none).
        let last = try server.synapse.peer(server.bob, ["messages", server.room])
        let lastEvent = try #require((last["events"] as? [[String: Any]])?.last?["event_id"] as? String)
        try server.synapse.peer(server.bob, ["receipt", server.room, lastEvent])
        try laptop.run(["sync"])
        let read = try laptop.run(["view", dinner, "--limit", "2"]).lines
        #expect(read.last?.hasSuffix("Ten minutes  ✓✓ read") == true, "\(read)")

        // Nothing goes into the encrypted room: the message fails, the room gets no event.
        let vaultFolder = try laptop.conversation(titled: "Vault")
        try laptop.run(["send", vaultFolder, "plain text"])
        let refused = try laptop.run(["sync"], expecting: 65)
        #expect(refused.stderr.contains("end-to-end encrypted"), "\(refused.stderr)")
        #expect(try server.messages(vault).isEmpty)

        // Another device of alice's, syncing later, writes the same bytes.
        let phone = try server.device("phone")
        try phone.run(["sync"])
        let laptopFiles = try laptop.sharedFiles()
        let phoneFiles = try phone.sharedFiles()
        #expect(laptopFiles.keys.sorted() == phoneFiles.keys.sorted())
        for (path, bytes) in laptopFiles {
            #expect(phoneFiles[path] == bytes, "\(path) differs between the devices")
        }
        try laptop.run(["check"])
        try phone.run(["check"])

        // A redaction after both devices stored the message: gone from both, the same bytes again.
        let events = try #require(
            try server.synapse.peer(server.bob, ["messages", server.room])["events"] as? [[String: Any]])
        let hello5 = try #require(
            events.first { ($0["content"] as? [String: Any])?["body"] as? String == "hello 5" }?["event_id"] as? String)
        try server.synapse.peer(server.bob, ["redact", server.room, hello5])
        try laptop.run(["sync"])
        try phone.run(["sync"])
        for device in [laptop, phone] {
            let files = try device.sharedFiles()
            #expect(
                !files.values.contains { String(decoding: $0, as: UTF8.self).contains(#""text":"hello 5""#) },
                "\(device.store) still holds the redacted text")
            #expect(try device.run(["view", dinner, "--limit", "100"]).lines[4].hasSuffix("(message deleted)"))
        }
        #expect(try laptop.sharedFiles() == (try phone.sharedFiles()))
        try laptop.run(["check"])

        // An invitation: `sync` says so with the command that accepts it; `join` joins and syncs.
        let picnic = try #require(
            try server.synapse.peer(server.bob, ["create-room", "--name", "Picnic", "--invite", server.alice.userID])[
                "room_id"] as? String)
        let invited = try laptop.run(["sync"])
        let joinCommand = "chatdir join --store \(laptop.store) '\(picnic)'"
        #expect(
            invited.stderr.contains(
                "chatdir sync: invited to \"Picnic\" (\(picnic)) by @bob:localhost; join: \(joinCommand)"),
            "\(invited.stderr)")
        #expect(throws: (any Error).self) { try laptop.conversation(titled: "Picnic") }
        // `list` shows it too, from the file the sync left (no request: the server is not asked).
        let invitedList = try laptop.run(["list"]).stdout
        #expect(
            invitedList.contains("invited to \"Picnic\" (\(picnic)) by @bob:localhost; join: \(joinCommand)\n"),
            "\(invitedList)")
        #expect(
            try laptop.run(["list", "--json"]).lines.contains(
                #"{"invitation":{"inviter":"@bob:localhost","name":"Picnic","room":"\#(picnic)"}}"#))
        try server.synapse.peer(server.bob, ["send", picnic, "Bring a blanket"])
        let joined = try laptop.run(["join", picnic])
        #expect(joined.stdout.hasPrefix("joined \(picnic) as "), "\(joined.stdout)")
        #expect(joined.stdout.contains("synced 3 conversations"), "\(joined.stdout)")
        let picnicFolder = try laptop.conversation(titled: "Picnic")
        #expect(joined.stdout.contains(picnicFolder))
        #expect(try laptop.run(["view", picnicFolder]).stdout.contains("Bring a blanket"))
        #expect(!(try laptop.run(["sync"]).stderr.contains("invited")))
        #expect(!(try laptop.run(["list"]).stdout.contains("invited")))
        try laptop.run(["join", "#nowhere:localhost"], expecting: 65)
    }

    @Test(
        "the live worker: bob's message, its redaction and his typing arrive, alice's message goes out, `read` reaches bob"
    )
    func live() throws {
        let server = try Homeserver.start()
        try server.synapse.peer(server.bob, ["send", server.room, "Anyone there?"])
        let laptop = try server.device("laptop")
        try laptop.run(["sync"])
        let dinner = try laptop.conversation(titled: "Dinner")
        let (worker, _) = try ChatdirProcess.startLiveWorker(
            store: laptop.store, token: laptop.token, environment: ["XDG_RUNTIME_DIR": laptop.runtime])
        defer { worker.terminate() }

        try server.synapse.peer(server.bob, ["send", server.room, "Dinner at eight?"])
        try waitUntil("bob's live message is in alice's view", timeout: .seconds(120)) {
            try laptop.run(["view", dinner, "--limit", "1"]).stdout.contains("Dinner at eight?")
        }

        let eight = try #require(
            (try server.synapse.peer(server.bob, ["messages", server.room])["events"] as? [[String: Any]])?.last?[
                "event_id"] as? String)
        try server.synapse.peer(server.bob, ["redact", server.room, eight])
        try waitUntil("bob's redaction reaches alice's view", timeout: .seconds(120)) {
            try laptop.run(["view", dinner, "--limit", "1"]).stdout.contains("(message deleted)")
        }

        try server.synapse.peer(server.bob, ["typing", server.room, "on"])
        try waitUntil("bob's typing is in alice's runtime channel", timeout: .seconds(120)) {
            let files = FileManager.default.enumerator(atPath: laptop.runtime)?.allObjects as? [String] ?? []
            return files.contains { $0.hasSuffix("typing/@bob%3Alocalhost") }
        }

        let id = try laptop.run(["send", dinner, "Yes!"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try waitUntil("alice's message is on the server", timeout: .seconds(120)) {
            try server.messages().contains { $0.cmid == id }
        }
        try waitUntil("alice's message is stored as sent", timeout: .seconds(120)) {
            try laptop.run(["view", dinner, "--limit", "1"]).stdout.contains("Yes!  ✓ sent")
        }

        try laptop.run(["read", dinner])
        let newest = try #require(
            (try server.synapse.peer(server.bob, ["messages", server.room])["events"] as? [[String: Any]])?.last?[
                "event_id"] as? String)
        try waitUntil("bob's client sees alice's read receipt on her newest message", timeout: .seconds(120)) {
            let sync = try server.synapse.peer(server.bob, ["sync"])
            return Self.readers(of: newest, in: sync).contains(server.alice.userID)
        }
        #expect(try server.messages().filter { $0.cmid == id }.count == 1)
    }

    @Test(
        "the live worker killed (SIGKILL) again and again while it delivers: every message once on the server, in order"
    )
    func killedWhileDelivering() throws {
        let server = try Homeserver.start()
        let laptop = try server.device("laptop")
        try laptop.run(["sync"])
        let dinner = try laptop.conversation(titled: "Dinner")
        let count = 60
        let texts = (1...count).map { "message \($0) of \(count)" }
        var queued: [String] = []
        for text in texts {
            queued.append(
                try laptop.run(["send", dinner, text]).stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        func delivered() throws -> Int { try server.messages().filter { $0.cmid != nil }.count }
        // Each round: start the worker, and kill it as soon as bob's client sees one more of them.
        let workers = try WorkerLog(laptop, in: server.directory)
        var seenAtKills: [Int] = []
        var seen = 0
        while seen < count, seenAtKills.count < 5 {
            let before = seen
            let worker = try workers.start()
            try waitUntil("the worker delivers another message", timeout: .seconds(120)) {
                seen = try delivered()
                return seen > before
            }
            kill(worker.processIdentifier, SIGKILL)
            worker.waitUntilExit()
            seenAtKills.append(try delivered())
        }
        // The rest, with a worker that is left to finish.
        let worker = try workers.start()
        defer { worker.terminate() }
        let stored = waitUntil(timeout: .seconds(300)) {
            (try? laptop.run(["view", dinner, "--limit", "100"]).lines.filter { $0.hasSuffix("✓ sent") }.count) == count
        }
        #expect(stored, "not every message is stored as sent; the workers' log ends:\n\(workers.tail)")
        #expect(
            seenAtKills.contains { $0 > 0 && $0 < count }, "a kill came in the middle of the delivery: \(seenAtKills)")
        let onServer = try server.messages().filter { $0.cmid != nil }
        #expect(onServer.map(\.cmid) == queued, "each message once, in the order queued; kills at \(seenAtKills)")
        #expect(onServer.map(\.body) == texts)
        try laptop.run(["check"])
    }

    @Test(
        "killed after storing a first room's messages and before writing its marker: the next sync goes on from what is stored"
    )
    func killedBeforeTheMarker() throws {
        let server = try Homeserver.start()
        let laptop = try server.device("laptop")
        // The room is empty at the first sync: caught up through sequence 0.
        try laptop.run(["sync"])
        let dinner = try laptop.conversation(titled: "Dinner")
        let marker = laptop.store + "/conversations/" + dinner + "/.caught-up"
        let empty = try Data(contentsOf: URL(fileURLWithPath: marker))
        #expect(String(decoding: empty, as: UTF8.self) == "0\n")
        try server.synapse.peer(server.bob, ["send-many", server.room, "3", "--prefix", "first"])
        try laptop.run(["sync"])
        // What a kill between the segment's rename and the marker's leaves: the messages stored
        // (numbered from the room's anchor) and the marker still at 0.
        try empty.write(to: URL(fileURLWithPath: marker))
        try server.synapse.peer(server.bob, ["send", server.room, "after the crash"])
        let synced = try laptop.run(["sync"])
        #expect(!synced.stderr.contains("broke"), "\(synced.stderr)")
        let rows = try laptop.run(["view", dinner, "--limit", "10"]).lines
        #expect(rows.filter { $0.contains("first ") }.count == 3, "\(rows)")
        #expect(rows.last?.contains("after the crash") == true, "\(rows)")
        try laptop.run(["check"])
    }

    @Test(
        "the older history a first sync brings: cut short, the next pass brings the rest; the live worker pages it too; both devices hold the same bytes"
    )
    func firstSyncHistoryResumes() throws {
        let server = try Homeserver.start()
        try server.synapse.peer(server.bob, ["send-many", server.room, "300", "--prefix", "old"])
        let history = ["CHATDIR_FIRST_SYNC_HISTORY": "250"]
        let laptop = try server.device("laptop")
        try laptop.run(["sync"], environment: history)
        let dinner = try laptop.conversation(titled: "Dinner")
        let folder = laptop.store + "/conversations/" + dinner
        func rows(_ device: Device) throws -> [String] {
            try device.run(["view", dinner, "--limit", "1000"]).lines.filter { $0.contains("@bob:localhost  old ") }
        }
        // The anchor is the newest message (old 300); 250 below it reach old 50.
        let stored = try rows(laptop)
        #expect(stored.count == 251)
        #expect(stored.first?.hasSuffix("old 50") == true, "\(stored.prefix(2))")
        let marker = folder + "/.history-complete"
        #expect(FileManager.default.contents(atPath: marker) == Data("999999750\n".utf8))
        let whole = try laptop.sharedFiles()

        // A pass cut short before the oldest page: that segment was never written, no marker.
        let oldest = try #require(
            try FileManager.default.contentsOfDirectory(atPath: folder + "/messages").filter { $0.hasSuffix(".json") }
                .sorted().first)
        try FileManager.default.removeItem(atPath: folder + "/messages/" + oldest)
        try FileManager.default.removeItem(atPath: marker)
        #expect(try rows(laptop).count < 251)
        try laptop.run(["sync"], environment: history)
        #expect(try rows(laptop).count == 251)
        #expect(try laptop.sharedFiles() == whole)
        #expect(FileManager.default.contents(atPath: marker) == Data("999999750\n".utf8))
        try laptop.run(["check"])

        // A second device that only ever runs the live worker gets the same history, paged in the background.
        let phone = try server.device("phone")
        let (worker, _) = try ChatdirProcess.startLiveWorker(
            store: phone.store, token: phone.token,
            environment: history.merging(["XDG_RUNTIME_DIR": phone.runtime]) { $1 })
        defer { worker.terminate() }
        try waitUntil("the phone's live worker stores the older history", timeout: .seconds(120)) {
            FileManager.default.fileExists(atPath: phone.store + "/conversations/" + dinner + "/.history-complete")
        }
        #expect(try phone.sharedFiles() == whole)
    }

    @Test(
        "the live worker killed (SIGKILL) again and again during its first sync of a room with history: it ends with the bytes a device that was never killed holds"
    )
    func killedDuringFirstSync() throws {
        let server = try Homeserver.start()
        try server.synapse.peer(server.bob, ["send-many", server.room, "600", "--prefix", "old"])
        let laptop = try server.device("laptop")
        let workers = try WorkerLog(laptop, in: server.directory)
        // Records in the laptop's segments, read straight from the files (a record is a line).
        func stored() -> Int {
            let conversations = laptop.store + "/conversations"
            var count = 0
            for folder in (try? FileManager.default.contentsOfDirectory(atPath: conversations)) ?? [] {
                let messages = conversations + "/" + folder + "/messages"
                for name in (try? FileManager.default.contentsOfDirectory(atPath: messages)) ?? []
                where name.hasSuffix(".json") {
                    let text = (try? String(contentsOfFile: messages + "/" + name, encoding: .utf8)) ?? ""
                    count += text.split(separator: "\n").filter { $0.contains("\"eventId\"") }.count
                }
            }
            return count
        }
        // Each round: start the worker, kill it as soon as it stored more; bob keeps talking.
        var storedAtKills: [Int] = []
        for round in 1...5 {
            let before = stored()
            let worker = try workers.start()
            let grew = waitUntil(timeout: .seconds(120), checkingEvery: .milliseconds(20)) { stored() > before }
            kill(worker.processIdentifier, SIGKILL)
            worker.waitUntilExit()
            storedAtKills.append(stored())
            #expect(grew, "round \(round): the worker stored nothing new")
            try server.synapse.peer(server.bob, ["send", server.room, "while killed \(round)"])
        }
        let worker = try workers.start()
        defer { worker.terminate() }
        let folder = laptop.store + "/conversations/" + (try laptop.conversation(titled: "Dinner"))
        let finished = waitUntil(timeout: .seconds(300)) {
            FileManager.default.fileExists(atPath: folder + "/.history-complete") && stored() == 605
        }
        #expect(finished, "stored \(stored()) of 605; the workers' log ends:\n\(workers.tail)")
        #expect(
            storedAtKills.contains { $0 > 0 && $0 < 600 },
            "a kill came in the middle of the first sync: \(storedAtKills)")
        try laptop.run(["check"])

        let phone = try server.device("phone")
        try phone.run(["sync"])
        #expect(try laptop.sharedFiles() == phone.sharedFiles(), "kills at \(storedAtKills)")
    }

    @Test(
        "chat on a room: alice types (bob's client sees her typing) and sends; bob's typing and his read receipt show on her screen",
        .enabled(if: Tmux.isAvailable, "tmux is not installed (.ci/run installs it)"))
    func chatTypingBothWays() throws {
        let server = try Homeserver.start()
        try server.synapse.peer(server.bob, ["send", server.room, "Pizza tonight?"])
        let laptop = try server.device("laptop")
        try laptop.run(["sync"])
        let dinner = try laptop.conversation(titled: "Dinner")
        let (worker, _) = try ChatdirProcess.startLiveWorker(
            store: laptop.store, token: laptop.token, environment: ["XDG_RUNTIME_DIR": laptop.runtime])
        defer { worker.terminate() }
        let tmux = Tmux()
        defer { tmux.shutDown() }
        let chat =
            "env TZ=UTC NO_COLOR=1 XDG_RUNTIME_DIR=\(laptop.runtime) \(ChatdirProcess.executable.path) chat \(dinner) --store \(laptop.store); echo \"exit status $?\"; sleep 600"
        try tmux.run(["new-session", "-d", "-s", "alice", "-x", "100", "-y", "24", chat])
        try waitUntil("alice's screen shows the worker connected and bob's message", timeout: .seconds(120)) {
            let pane = try tmux.pane("alice")
            return pane.contains { $0.contains("sync worker connected") }
                && pane.contains { $0.contains("Pizza tonight?") }
        }

        func typing(in sync: [String: Any]) -> [String] {
            let rooms = (sync["rooms"] as? [String: Any])?["join"] as? [String: Any] ?? [:]
            let events = ((rooms[server.room] as? [String: Any])?["ephemeral"] as? [String: Any])?["events"]
            return (events as? [[String: Any]] ?? []).filter { $0["type"] as? String == "m.typing" }
                .flatMap { ($0["content"] as? [String: Any])?["user_ids"] as? [String] ?? [] }
        }
        try tmux.run(["send-keys", "-t", "alice", "-l", "yes, with olives"])
        try waitUntil("bob's client sees alice typing", timeout: .seconds(120)) {
            typing(in: try server.synapse.peer(server.bob, ["sync"])).contains(server.alice.userID)
        }
        try tmux.run(["send-keys", "-t", "alice", "Enter"])
        try waitUntil("alice's message is on the server", timeout: .seconds(120)) {
            try server.messages().contains { $0.body == "yes, with olives" }
        }
        try waitUntil("alice's screen shows her message sent", timeout: .seconds(120)) {
            try tmux.pane("alice").contains { $0.contains("yes, with olives") && $0.contains("✓") }
        }

        try server.synapse.peer(server.bob, ["typing", server.room, "on"])
        try waitUntil("alice's screen shows bob typing", timeout: .seconds(120)) {
            try tmux.pane("alice").contains { $0.contains("@bob:localhost is typing") }
        }
        let newest = try #require(
            (try server.synapse.peer(server.bob, ["messages", server.room])["events"] as? [[String: Any]])?.last?[
                "event_id"] as? String)
        try server.synapse.peer(server.bob, ["receipt", server.room, newest])
        try waitUntil("alice's screen shows her message read", timeout: .seconds(120)) {
            try tmux.pane("alice").contains { $0.contains("yes, with olives") && $0.contains("✓✓ read") }
        }
        #expect(try server.messages().filter { $0.body == "yes, with olives" }.count == 1)
        #expect(try !tmux.pane("alice").contains { $0.contains("delivered") }, "\(tmux.screen("alice"))")
    }

    @Test("bob's read receipt on his reaction to alice's message (an event with no sequence) turns her tick to read")
    func receiptOnReaction() throws {
        let server = try Homeserver.start()
        try server.synapse.peer(server.bob, ["send", server.room, "Who brings the wine?"])
        let laptop = try server.device("laptop")
        try laptop.run(["sync"])
        let dinner = try laptop.conversation(titled: "Dinner")
        try laptop.run(["send", dinner, "I do"])
        try laptop.run(["sync"])
        #expect(try laptop.run(["view", dinner, "--limit", "1"]).stdout.contains("I do  ✓ sent"))
        let mine = try #require(
            (try server.synapse.peer(server.bob, ["messages", server.room])["events"] as? [[String: Any]])?.last?[
                "event_id"] as? String)
        let reaction = try #require(
            try server.synapse.peer(server.bob, ["react", server.room, mine, "👍"])["event_id"] as? String)
        try server.synapse.peer(server.bob, ["receipt", server.room, reaction])
        try laptop.run(["sync"])
        let view = try laptop.run(["view", dinner, "--limit", "1"]).stdout
        #expect(view.contains("I do  ✓✓ read"), "\(view)")
    }

    @Test(
        "a message an earlier worker got onto the server, past the homeserver's memory of its transaction: the live worker finds it instead of sending it again"
    )
    func retryAfterTransactionForgotten() throws {
        let server = try Homeserver.start()
        let laptop = try server.device("laptop")
        try laptop.run(["sync"])
        let dinner = try laptop.conversation(titled: "Dinner")
        let id = try laptop.run(["send", dinner, "only once"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // What an earlier worker's PUT left when it was killed before storing the event, a day
        // ago: the event with the message's ID, under a transaction this device's homeserver
        // session no longer knows (another device's here, which the homeserver never matches).
        try server.synapse.peer(server.alice, ["send", server.room, "only once", "--cmid", id])
        let (worker, _) = try ChatdirProcess.startLiveWorker(
            store: laptop.store, token: laptop.token, environment: ["XDG_RUNTIME_DIR": laptop.runtime])
        defer { worker.terminate() }
        try waitUntil("the message is stored as sent", timeout: .seconds(120)) {
            try laptop.run(["view", dinner, "--limit", "5"]).stdout.contains("only once  ✓ sent")
        }
        // A second event would come within the worker's first outbox round (a second at most).
        Thread.sleep(forTimeInterval: 3)
        #expect(try server.messages().filter { $0.cmid == id }.count == 1)
        try laptop.run(["check"])
        let outbox = laptop.store + "/conversations/" + dinner + "/outbox"
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: outbox)) ?? []).isEmpty)
    }

    @Test(
        "the homeserver took alice's message and its answer was lost: the live worker catches up before it tries again, finds the message there, and never sends it twice"
    )
    func lostAnswerCaughtUpBeforeRetry() throws {
        let server = try Homeserver.start()
        let proxy = try RequestLineProxy(upstreamPort: UInt16(server.synapse.port)) {
            $0.hasPrefix("PUT ") && $0.contains("/send/m.room.message/")
        }
        let laptop = try server.device("laptop", server: proxy.url)
        try laptop.run(["sync"])
        let dinner = try laptop.conversation(titled: "Dinner")
        let workers = try WorkerLog(laptop, in: server.directory)
        let worker = try workers.start()
        defer { worker.terminate() }

        let id = try laptop.run(["send", dinner, "only once"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let stored = waitUntil(timeout: .seconds(120)) {
            (try? laptop.run(["view", dinner, "--limit", "5"]).stdout.contains("only once  ✓ sent")) == true
        }
        #expect(stored, "the message is not stored as sent; the worker's log ends:\n\(workers.tail)")
        // A second PUT would come with the worker's next outbox round (a second at most).
        Thread.sleep(forTimeInterval: 3)
        let puts = proxy.requestLines.filter { $0.hasPrefix("PUT ") && $0.contains("/send/m.room.message/\(id)") }
        #expect(puts.count == 1, "PUTs of the message: \(puts); the worker's log ends:\n\(workers.tail)")
        #expect(try server.messages().filter { $0.cmid == id }.count == 1)
        try laptop.run(["check"])
    }

    @Test("two devices of alice's keep the store in git: each syncs and sends, and the merge is clean")
    func gitMergeOfTwoDevices() throws {
        let server = try Homeserver.start()
        try server.synapse.peer(server.bob, ["send-many", server.room, "5", "--prefix", "before"])
        let environment = [
            "HOME": server.directory.path, "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": server.directory.file("gitconfig"), "LC_ALL": "C",
        ]
        @discardableResult
        func git(_ arguments: [String], in repository: String) throws -> ChatdirProcess.Result {
            let result = try ChatdirProcess.run(
                ["-C", repository] + arguments, environment: environment,
                executable: URL(fileURLWithPath: "/usr/bin/git"))
            #expect(result.status == 0, "git \(arguments.joined(separator: " ")): \(result.stdout)\(result.stderr)")
            return result
        }
        func setUp(_ path: String) throws {
            try git(["config", "user.name", "Test"], in: path)
            try git(["config", "user.email", "test@example.invalid"], in: path)
            let setup = try ChatdirProcess.run(["git-setup", "--store", path], environment: environment)
            #expect(setup.status == 0, "\(setup.stderr)")
        }
        func commit(_ path: String) throws {
            try git(["add", "-A"], in: path)
            try git(["commit", "--quiet", "-m", "sync"], in: path)
        }

        let laptop = try server.device("laptop")
        try git(["init", "--quiet", "-b", "main"], in: laptop.store)
        try setUp(laptop.store)
        try laptop.run(["sync"])
        try commit(laptop.store)
        let dinner = try laptop.conversation(titled: "Dinner")

        // The phone starts as a clone of the laptop's repository, with a device (and token) of its own.
        let phoneStore = server.directory.file("phone")
        try git(["clone", "--quiet", laptop.store, phoneStore], in: server.directory.path)
        try setUp(phoneStore)
        let phone = Device(
            store: phoneStore, token: try server.synapse.login(server.alice, deviceID: "CHATDIR-PHONE"),
            runtime: laptop.runtime)

        // Both move on apart: bob writes, each device sends one and syncs, each commits.
        try server.synapse.peer(server.bob, ["send", server.room, "from bob"])
        try laptop.run(["send", dinner, "from the laptop"])
        try laptop.run(["sync"])
        try phone.run(["send", dinner, "from the phone"])
        try phone.run(["sync"])
        // The laptop has not seen the phone's message: its segment is a shorter version of the phone's.
        try commit(laptop.store)
        try commit(phoneStore)

        try git(["pull", "--quiet", "--no-rebase", phoneStore, "main"], in: laptop.store)
        #expect(try git(["status", "--porcelain"], in: laptop.store).stdout.isEmpty)
        try laptop.run(["check"])
        let rows = try laptop.run(["view", dinner, "--limit", "3"]).lines
        #expect(
            rows[0].hasSuffix("from bob") && rows[1].contains("from the laptop") && rows[2].contains("from the phone"))
        let laptopFiles = try laptop.sharedFiles()
        let phoneFiles = try phone.sharedFiles()
        for (path, bytes) in phoneFiles where path.contains("/messages/") {
            #expect(laptopFiles[path] == bytes, "\(path) differs after the merge")
        }
    }

    @Test("a room whose event graph forked (three members sending at once): the first sync stores every message")
    func forkedRoom() throws {
        let server = try Homeserver.start()
        let carol = try server.synapse.register("carol")
        try server.synapse.peer(server.bob, ["invite", server.room, carol.userID])
        try server.synapse.peer(carol, ["join", server.room])
        // Sends at the same moment build on the same events: the graph forks, and messages share a depth.
        let senders = [(server.bob, "bob"), (server.alice, "alice"), (carol, "carol")]
        let failures = Mutex<[String]>([])
        // Then each sends one more at the same moment, so the newest message (where a first
        // device puts the anchor) most likely shares its depth with the others.
        for command in [["send-many", server.room, "40", "--prefix"], ["send-many", server.room, "1", "--prefix"]] {
            DispatchQueue.concurrentPerform(iterations: senders.count) { index in
                let (user, prefix) = senders[index]
                do {
                    try server.synapse.peer(user, command + [prefix])
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        let failed = failures.withLock { $0 }
        #expect(failed.isEmpty, "\(failed)")
        let onServer = try server.messages()
        #expect(onServer.count == 123)
        let laptop = try server.device("laptop")
        try laptop.run(["sync"])
        let rows = try laptop.run(["view", try laptop.conversation(titled: "Dinner"), "--limit", "1000"]).lines
        #expect(rows.count == onServer.count, "stored \(rows.count) of \(onServer.count)")
        let phone = try server.device("phone")
        try phone.run(["sync"])
        #expect(try laptop.sharedFiles() == (try phone.sharedFiles()))
    }

    @Test(
        "the live worker saves bob's messages, an edit and a redaction from /sync alone when they follow one another; a reaction sends it to /messages; a device paging later writes the same bytes"
    )
    func liveWithoutMessagesRequests() throws {
        let server = try Homeserver.start()
        try server.synapse.peer(server.bob, ["send", server.room, "before"])
        let proxy = try RequestLineProxy(upstreamPort: UInt16(server.synapse.port))
        let laptop = try server.device("laptop", server: proxy.url)
        try laptop.run(["sync"])
        let dinner = try laptop.conversation(titled: "Dinner")
        let workers = try WorkerLog(laptop, in: server.directory)
        let worker = try workers.start()
        defer { worker.terminate() }
        func stored(_ text: String) throws {
            try waitUntil("\(text) is in alice's view; the worker's log ends:\n\(workers.tail)", timeout: .seconds(120))
            {
                try laptop.run(["view", dinner, "--limit", "20"]).stdout.contains(text)
            }
        }
        func messagesRequests() -> Int { proxy.requestLines.filter { $0.contains("/messages?") }.count }

        try server.synapse.peer(server.bob, ["send", server.room, "first live"])
        try stored("first live")
        let asked = messagesRequests()
        var sent: [String] = []
        for text in ["second", "third", "fourth"] {
            sent.append(
                try #require(try server.synapse.peer(server.bob, ["send", server.room, text])["event_id"] as? String))
            try stored(text)
        }
        try server.synapse.peer(server.bob, ["edit", server.room, sent[0], "second, edited"])
        try stored("second, edited")
        try server.synapse.peer(server.bob, ["redact", server.room, sent[1]])
        try waitUntil("the redaction reaches alice's store", timeout: .seconds(120)) {
            let rows = try laptop.run(["view", dinner, "--limit", "10"]).stdout
            return rows.contains("(message deleted)") && !rows.contains("third")
        }
        #expect(messagesRequests() == asked, "\(proxy.requestLines.suffix(20))")

        // A reaction is not in the live filter: the next message was sent after an event the
        // worker did not see, so it asks /messages.
        try server.synapse.peer(server.bob, ["react", server.room, sent[2], "👍"])
        try server.synapse.peer(server.bob, ["send", server.room, "after the reaction"])
        try stored("after the reaction")
        #expect(messagesRequests() > asked)

        let phone = try server.device("phone")
        try phone.run(["sync"])
        #expect(try laptop.sharedFiles() == (try phone.sharedFiles()))
        try laptop.run(["check"])
    }

    @Test(
        "the live worker while three members send at once (the event graph forks): it stores every message, in the order a device paging later writes"
    )
    func liveForkedRoom() throws {
        let server = try Homeserver.start()
        let carol = try server.synapse.register("carol")
        try server.synapse.peer(server.bob, ["invite", server.room, carol.userID])
        try server.synapse.peer(carol, ["join", server.room])
        try server.synapse.peer(server.bob, ["send", server.room, "before"])
        let laptop = try server.device("laptop")
        try laptop.run(["sync"])
        let dinner = try laptop.conversation(titled: "Dinner")
        let workers = try WorkerLog(laptop, in: server.directory)
        let worker = try workers.start()
        defer { worker.terminate() }
        try server.synapse.peer(server.bob, ["send", server.room, "worker is up"])
        try waitUntil("the worker stores bob's message", timeout: .seconds(120)) {
            try laptop.run(["view", dinner, "--limit", "1"]).stdout.contains("worker is up")
        }

        let senders = [(server.bob, "bob"), (server.alice, "alice"), (carol, "carol")]
        let failures = Mutex<[String]>([])
        for _ in 0..<4 {
            DispatchQueue.concurrentPerform(iterations: senders.count) { index in
                let (user, prefix) = senders[index]
                do {
                    try server.synapse.peer(user, ["send-many", server.room, "10", "--prefix", prefix])
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        let onServer = try server.messages().count
        try waitUntil(
            "the worker stores all \(onServer) messages; its log ends:\n\(workers.tail)", timeout: .seconds(120)
        ) {
            try laptop.run(["view", dinner, "--limit", "1000"]).lines.count == onServer
        }
        let phone = try server.device("phone")
        try phone.run(["sync"])
        #expect(try laptop.sharedFiles() == (try phone.sharedFiles()))
        try laptop.run(["check"])
    }

    @Test("an invitation that comes while the live worker runs is in `list` at once; joined, it leaves the list")
    func invitationWhileLive() throws {
        let server = try Homeserver.start()
        let laptop = try server.device("laptop")
        try laptop.run(["sync"])
        let workers = try WorkerLog(laptop, in: server.directory)
        let worker = try workers.start()
        defer { worker.terminate() }
        try waitUntil("the worker is connected", timeout: .seconds(120)) {
            try laptop.run(["status"]).stdout.contains("connected")
        }

        let picnic = try #require(
            try server.synapse.peer(server.bob, ["create-room", "--name", "Picnic", "--invite", server.alice.userID])[
                "room_id"] as? String)
        let line =
            "invited to \"Picnic\" (\(picnic)) by @bob:localhost; join: chatdir join --store \(laptop.store) '\(picnic)'"
        try waitUntil(
            "the invitation is in alice's list; the worker's log ends:\n\(workers.tail)", timeout: .seconds(120)
        ) {
            try laptop.run(["list"]).stdout.contains(line)
        }
        try server.synapse.peer(server.bob, ["send", picnic, "Bring a blanket"])
        // The worker holds the store: join only joins, and the worker brings the room.
        let joined = try laptop.run(["join", picnic]).stdout
        #expect(
            joined.contains("joined \(picnic) as ") && joined.contains("the running sync worker (pid "), "\(joined)")
        try waitUntil("the joined room leaves the list's invitations", timeout: .seconds(120)) {
            try !laptop.run(["list"]).stdout.contains("invited")
        }
        try waitUntil("the worker stores the joined room's message", timeout: .seconds(120)) {
            let folder = try? laptop.conversation(titled: "Picnic")
            return try folder.map { try laptop.run(["view", $0]).stdout.contains("Bring a blanket") } ?? false
        }
    }

    /// Who has an `m.read` receipt on `event` in a `/sync` answer.
    static func readers(of event: String, in sync: [String: Any]) -> [String] {
        let rooms = (sync["rooms"] as? [String: Any])?["join"] as? [String: Any] ?? [:]
        var readers: [String] = []
        for case let room as [String: Any] in rooms.values {
            let events = (room["ephemeral"] as? [String: Any])?["events"] as? [[String: Any]] ?? []
            for receipt in events where receipt["type"] as? String == "m.receipt" {
                let content = receipt["content"] as? [String: Any] ?? [:]
                let read = (content[event] as? [String: Any])?["m.read"] as? [String: Any] ?? [:]
                readers += read.keys
            }
        }
        return readers
    }
}
