import ChatDomain
import ChatTestSupport
import Foundation
import Testing

/// `chatdir create` on a Matrix store against a real Synapse, with the real binary: the room is
/// made by the next sync (one pass or the live worker), found again instead of made twice after
/// a lost answer, and the conversation's folder becomes the room's; bob (the standard-library
/// peer) is the invited member.
@Suite(.ownThreads, .enabled(if: Synapse.isInstalled, Comment(rawValue: Synapse.notInstalled)))
struct MatrixCreateEndToEndTests {
    typealias Homeserver = MatrixSyncEndToEndTests.Homeserver
    typealias Device = MatrixSyncEndToEndTests.Device

    /// The folder `sync` said conversation `id` was started as (`started ID as FOLDER`).
    static func startedFolder(_ id: String, in output: String) throws -> String {
        let prefix = "started \(id) as "
        guard let line = output.split(separator: "\n").first(where: { $0.contains(prefix) }),
            let range = line.range(of: prefix)
        else { throw MatrixSyncEndToEndTests.Failure("no `\(prefix)FOLDER` in: \(output)") }
        return String(line[range.upperBound...])
    }

    /// The room ID `folder`'s conversation.json names.
    static func roomID(_ device: Device, _ folder: String) throws -> String {
        let data = try Data(
            contentsOf: URL(fileURLWithPath: device.store + "/conversations/" + folder + "/conversation.json"))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["roomId"] as? String)
    }

    /// The rooms `user` has joined, as the homeserver answers `/joined_rooms`.
    static func joinedRooms(_ server: Homeserver, _ user: Synapse.User) throws -> [String] {
        try #require(try server.synapse.peer(user, ["joined-rooms"])["joined_rooms"] as? [String])
    }

    /// Queues `lunch` with bob and two messages, offline; their client message IDs.
    static func queueLunch(_ server: Homeserver, on device: Device) throws -> [String] {
        let created = try device.run(["create", "lunch", "--title", "Lunch", "--member", server.bob.userID])
        #expect(created.stdout == "lunch\n")
        return [
            try device.run(["send", "lunch", "noon?"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines),
            try device.run(["send", "lunch", "the usual place"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines),
        ]
    }

    /// Every file of conversation `folder` but its outbox, with its bytes.
    static func files(of folder: String, on device: Device) throws -> [String: Data] {
        try device.sharedFiles().filter { $0.key.hasPrefix(folder + "/") }
    }

    @Test(
        "offline create and two sends: one sync makes one room named Lunch inviting bob, both messages go in once in order, the folder becomes the room's, a second device writes the same bytes"
    )
    func offlineCreateThenSync() throws {
        let server = try Homeserver.start()
        let laptop = try server.device("laptop")
        let queued = try Self.queueLunch(server, on: laptop)
        let roomsBefore = try Self.joinedRooms(server, server.alice)

        let synced = try laptop.run(["sync"])
        #expect(synced.stdout.contains("2 sent"), "\(synced.stdout)")
        let folder = try Self.startedFolder("lunch", in: synced.stdout)
        let room = try Self.roomID(laptop, folder)
        #expect(try Self.joinedRooms(server, server.alice).count == roomsBefore.count + 1)
        #expect(!FileManager.default.fileExists(atPath: laptop.store + "/conversations/lunch"))
        #expect(
            !FileManager.default.fileExists(atPath: laptop.store + "/conversations/" + folder + "/outbox/create.json"))
        // The queued ID no longer names a folder: a send to it says where the room went.
        let late = try laptop.run(["send", "lunch", "one more"], expecting: 66)
        #expect(late.stderr.contains("moved it, with its queued messages, to \(folder); use that"), "\(late.stderr)")
        #expect(!FileManager.default.fileExists(atPath: laptop.store + "/conversations/lunch"))

        // Bob's client sees the invitation to "Lunch", joins, and finds both messages once, in order.
        let invites = try #require(
            (try server.synapse.peer(server.bob, ["sync"])["rooms"] as? [String: Any])?["invite"] as? [String: Any])
        let invite = try #require(invites[room] as? [String: Any], "bob is not invited to \(room): \(invites.keys)")
        let stripped = (invite["invite_state"] as? [String: Any])?["events"] as? [[String: Any]] ?? []
        #expect(
            stripped.contains {
                $0["type"] as? String == "m.room.name"
                    && ($0["content"] as? [String: Any])?["name"] as? String == "Lunch"
            })
        try server.synapse.peer(server.bob, ["join", room])
        let onServer = try server.messages(room)
        #expect(onServer.map(\.body) == ["noon?", "the usual place"])
        #expect(onServer.map(\.cmid) == queued)

        // Alice's store: the room's folder holds both as sent, the folder made offline is gone.
        let rows = try laptop.run(["view", folder]).lines
        #expect(rows.count == 2, "\(rows)")
        #expect(rows.first?.hasSuffix("noon?  ✓ sent") == true, "\(rows)")
        #expect(rows.last?.hasSuffix("the usual place  ✓ sent") == true, "\(rows)")
        #expect(try laptop.run(["list"]).stdout.contains(folder + "  Lunch"))
        try laptop.run(["check"])
        #expect(try laptop.run(["sync"]).stdout.contains("0 sent"))
        #expect(try server.messages(room).count == 2, "nothing sent twice")

        // Another device of alice's, syncing now, holds the same details and segments.
        let phone = try server.device("phone")
        try phone.run(["sync"])
        let laptopFiles = try Self.files(of: folder, on: laptop)
        let phoneFiles = try Self.files(of: folder, on: phone)
        #expect(laptopFiles.keys.contains(folder + "/conversation.json"))
        #expect(laptopFiles.keys.contains { $0.hasPrefix(folder + "/messages/") })
        #expect(laptopFiles.keys.sorted() == phoneFiles.keys.sorted())
        for (path, bytes) in laptopFiles {
            #expect(phoneFiles[path] == bytes, "\(path) differs between the devices")
        }
        try phone.run(["check"])
    }

    @Test(
        "a lost answer: the room made with the creation's key exists, so sync makes none, invites bob whom that attempt did not, and delivers into it"
    )
    func lostAnswerFindsTheRoom() throws {
        let server = try Homeserver.start()
        let laptop = try server.device("laptop")
        let queued = try Self.queueLunch(server, on: laptop)
        // The creation's key, as docs/FORMAT.md says to compute it from outbox/create.json.
        let creation = try #require(
            try JSONSerialization.jsonObject(
                with: Data(contentsOf: URL(fileURLWithPath: laptop.store + "/conversations/lunch/outbox/create.json")))
                as? [String: Any])
        let createdAt = try #require(creation["createdAt"] as? String)
        let key = String(SHA256.hex("\(server.alice.userID)\nlunch\n\(createdAt)".utf8).prefix(32))
        // The attempt whose answer never came back, cut short before its invitation went out
        // (as Synapse does when an invitation fails): the room is there, bob not invited.
        let made = try server.synapse.peer(
            server.alice,
            ["create-room", "--name", "Lunch", "--creation-content", #"{"org.chatdir.creation":""# + key + #""}"#])
        let room = try #require(made["room_id"] as? String)
        let roomsBefore = try Self.joinedRooms(server, server.alice)

        let synced = try laptop.run(["sync"])
        let folder = try Self.startedFolder("lunch", in: synced.stdout)
        #expect(try Self.roomID(laptop, folder) == room)
        #expect(try Self.joinedRooms(server, server.alice).sorted() == roomsBefore.sorted(), "a second room was made")
        #expect(!FileManager.default.fileExists(atPath: laptop.store + "/conversations/lunch"))
        try server.synapse.peer(server.bob, ["join", room])
        let onServer = try server.messages(room)
        #expect(onServer.map(\.body) == ["noon?", "the usual place"])
        #expect(onServer.map(\.cmid) == queued)
        let rows = try laptop.run(["view", folder]).lines
        #expect(rows.map { $0.hasSuffix("✓ sent") } == [true, true], "\(rows)")
        try laptop.run(["check"])
    }

    @Test(
        "killed after writing the room down and before the move: the next sync finishes it without asking for a room"
    )
    func resumesAfterTheRoomIsWrittenDown() throws {
        let server = try Homeserver.start()
        let laptop = try server.device("laptop")
        let queued = try Self.queueLunch(server, on: laptop)
        // The room a killed sync made, without the key (so only the store can tell it is this
        // creation), written into conversation.json as the first step of the move does.
        let made = try server.synapse.peer(
            server.alice, ["create-room", "--name", "Lunch", "--invite", server.bob.userID])
        let room = try #require(made["room_id"] as? String)
        try Data(
            "{\n\"members\":[\"\(server.alice.userID)\"],\n\"roomId\":\"\(room)\",\n\"title\":\"Lunch\"\n}\n".utf8
        ).write(to: URL(fileURLWithPath: laptop.store + "/conversations/lunch/conversation.json"))
        try laptop.run(["check"])
        let roomsBefore = try Self.joinedRooms(server, server.alice)

        let synced = try laptop.run(["sync"])
        let folder = try Self.startedFolder("lunch", in: synced.stdout)
        #expect(try Self.roomID(laptop, folder) == room)
        #expect(try Self.joinedRooms(server, server.alice).sorted() == roomsBefore.sorted(), "a second room was made")
        try server.synapse.peer(server.bob, ["join", room])
        #expect(try server.messages(room).map(\.cmid) == queued)
        try laptop.run(["check"])
    }

    @Test("the live worker starts a room created while it runs, then delivers its messages")
    func liveWorkerStartsTheRoom() throws {
        let server = try Homeserver.start()
        let laptop = try server.device("laptop")
        try laptop.run(["sync"])
        let logPath = server.directory.file("worker.log")
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        defer { try? log.close() }
        let worker = try ChatdirProcess.start(
            ["sync", "--live", "--store", laptop.store],
            environment: ["CHATDIR_TOKEN": laptop.token, "XDG_RUNTIME_DIR": laptop.runtime], standardError: log)
        defer { worker.terminate() }
        func logged() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }
        try waitUntil("the worker is connected", timeout: .seconds(120)) { logged().contains("caught up") }

        let queued = try Self.queueLunch(server, on: laptop)
        try waitUntil("the worker starts lunch", timeout: .seconds(120)) { logged().contains("started lunch as ") }
        let folder = try Self.startedFolder("lunch", in: logged())
        let room = try Self.roomID(laptop, folder)
        try server.synapse.peer(server.bob, ["join", room])
        try waitUntil("both messages are on the server", timeout: .seconds(120)) {
            try server.messages(room).count == 2
        }
        #expect(try server.messages(room).map(\.cmid) == queued)
        let stored = waitUntil(timeout: .seconds(120)) {
            (try? laptop.run(["view", folder]).lines.filter { $0.hasSuffix("✓ sent") }.count) == 2
        }
        #expect(stored, "the worker's log ends:\n\(logged().suffix(3000))")
        // The room's own catch-up and the drain's placing of its messages race; neither may fail.
        #expect(!logged().contains("failed"), "the worker's log:\n\(logged().suffix(3000))")
        #expect(!FileManager.default.fileExists(atPath: laptop.store + "/conversations/lunch"))
        #expect(try server.messages(room).count == 2, "nothing sent twice")
    }

    @Test("a creation the homeserver refuses turns failed with its reason; sync exits 65, the messages stay pending")
    func refusedCreation() throws {
        // A homeserver that lets no one but its admins invite: it refuses the room's invitation (403).
        let synapse = try Synapse.start(configuration: ["block_non_admin_invites: true"])
        let server = Homeserver(
            synapse: synapse, alice: try synapse.register("alice"), bob: try synapse.register("bob"), room: "",
            directory: try TemporaryDirectory())
        let laptop = try server.device("laptop")
        _ = try Self.queueLunch(server, on: laptop)

        let refused = try laptop.run(["sync"], expecting: 65)
        #expect(refused.stderr.contains("Invites have been disabled on this server"), "\(refused.stderr)")
        #expect(!refused.stdout.contains("started lunch"), "\(refused.stdout)")
        let creation = try String(
            contentsOfFile: laptop.store + "/conversations/lunch/outbox/create.json", encoding: .utf8)
        #expect(creation.contains(#""state":"failed""#), "\(creation)")
        #expect(creation.contains("Invites have been disabled on this server"), "\(creation)")
        let rows = try laptop.run(["view", "lunch"]).lines
        #expect(rows.map { $0.hasSuffix("◷ pending") } == [true, true], "\(rows)")
        // Later passes leave it failed and say the messages are still pending.
        try laptop.run(["sync"], expecting: 75)
        try laptop.run(["check"])
    }
}
