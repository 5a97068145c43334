import ChatStore
import ChatTestSupport
import Foundation
import Testing

/// `chatdir leave` on a Matrix store against a real Synapse, with the real binary: an invitation
/// declined, a joined room left with a message still queued for it, and what the store keeps.
@Suite(.ownThreads, .enabled(if: Synapse.isInstalled, Comment(rawValue: Synapse.notInstalled)))
struct MatrixLeaveEndToEndTests {
    typealias Homeserver = MatrixSyncEndToEndTests.Homeserver
    typealias Device = MatrixSyncEndToEndTests.Device

    /// The rooms of one kind (`join`, `invite`) in `user`'s initial `/sync`.
    static func rooms(_ kind: String, of user: Synapse.User, on server: Homeserver) throws -> [String] {
        let sync = try server.synapse.peer(user, ["sync"])
        return Array(((sync["rooms"] as? [String: Any])?[kind] as? [String: Any] ?? [:]).keys)
    }

    @Test(
        "leave ROOM declines an invitation, also while another process holds the store: the homeserver has it declined, list stops offering it, a sync makes no folder"
    )
    func declineInvitation() throws {
        let server = try Homeserver.start()
        let laptop = try server.device("laptop")
        let picnic = try server.roomInvitingAlice("Picnic")
        try laptop.run(["sync"])
        #expect(try laptop.run(["list"]).stdout.contains("invited to \"Picnic\" (\(picnic))"))
        let folders = try FileManager.default.contentsOfDirectory(atPath: laptop.store + "/conversations").sorted()

        let declined = try {
            // The store's writer lock held here, as a running `sync --live` holds it.
            let writer = try StoreWriter(store: try Store.open(at: laptop.store))
            defer { withExtendedLifetime(writer) {} }
            return try laptop.run(["leave", picnic])
        }()
        #expect(declined.stdout == "declined the invitation to \(picnic)\n", "\(declined.stdout)")
        #expect(declined.stderr.isEmpty, "\(declined.stderr)")
        #expect(!(try Self.rooms("invite", of: server.alice, on: server).contains(picnic)))
        #expect(!(try laptop.run(["list"]).stdout.contains("invited")))

        let synced = try laptop.run(["sync"])
        #expect(!synced.stderr.contains("invited"), "\(synced.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: laptop.store + "/conversations").sorted() == folders)
    }

    @Test(
        "leave CONV of a joined room with a message queued: the homeserver has alice gone, the folder's files stay byte for byte, the message is never sent and the next sync fails it with the homeserver's words; invited again, join brings the room back"
    )
    func leaveJoinedRoom() throws {
        let server = try Homeserver.start()
        try server.synapse.peer(server.bob, ["send", server.room, "before you go"])
        let laptop = try server.device("laptop")
        try laptop.run(["sync"])
        let folder = try laptop.conversation(titled: "Dinner")
        let kept = try laptop.sharedFiles().filter { $0.key.hasPrefix(folder + "/") }
        #expect(kept.keys.contains { $0.hasPrefix(folder + "/messages/") })
        let queued = try laptop.run(["send", folder, "never sent"]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)

        let left = try laptop.run(["leave", folder])
        #expect(left.stdout == "left \(server.room); \(folder) and its history stay in the store\n", "\(left.stdout)")
        #expect(
            left.stderr
                == "chatdir leave: 1 message queued in \(folder) will not be sent: the next sync marks it failed (`chatdir cancel --all-failed \(folder)` then removes it)\n",
            "\(left.stderr)")
        #expect(!(try MatrixCreateEndToEndTests.joinedRooms(server, server.alice).contains(server.room)))

        // The pass lists the room no more; its queued message goes to the homeserver, which refuses it.
        let synced = try laptop.run(["sync"], expecting: 65)
        #expect(synced.stderr.contains("rejected: \(folder) \(queued): "), "\(synced.stderr)")
        #expect(synced.stderr.contains("M_FORBIDDEN"), "\(synced.stderr)")
        #expect(try server.messages().map(\.body) == ["before you go"])
        let view = try laptop.run(["view", folder, "--json"]).stdout
        #expect(view.contains(#""status":"failed""#) && view.contains("never sent"), "\(view)")
        #expect(try laptop.sharedFiles().filter { $0.key.hasPrefix(folder + "/") } == kept)

        try laptop.run(["cancel", "--all-failed", folder])
        try server.synapse.peer(server.bob, ["invite", server.room, server.alice.userID])
        try laptop.run(["join", server.room])
        try server.synapse.peer(server.bob, ["send", server.room, "welcome back"])
        try laptop.run(["sync"])
        let rows = try laptop.run(["view", folder]).stdout
        #expect(rows.contains("before you go") && rows.contains("welcome back"), "\(rows)")
        #expect(!rows.contains("never sent"), "\(rows)")
    }

    @Test(
        "leave beside a running worker: a message sent to the room afterwards fails with the homeserver's words, is never on the homeserver, and the worker goes on with the other rooms"
    )
    func leaveWhileLive() throws {
        let server = try Homeserver.start()
        let laptop = try server.device("laptop")
        let lunch = try server.roomInvitingAlice("Lunch")
        try server.synapse.peer(server.alice, ["join", lunch])
        try laptop.run(["sync"])
        let dinner = try laptop.conversation(titled: "Dinner")
        let lunchFolder = try laptop.conversation(titled: "Lunch")
        let (worker, _) = try ChatdirProcess.startLiveWorker(
            store: laptop.store, token: laptop.token, environment: ["XDG_RUNTIME_DIR": laptop.runtime])
        defer { worker.terminate() }

        let left = try laptop.run(["leave", dinner])
        #expect(left.stdout.hasPrefix("left \(server.room); "), "\(left.stdout)")
        let late = try laptop.run(["send", dinner, "too late"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try waitUntil("the message to the room left fails", timeout: .seconds(120)) {
            try laptop.run(["view", dinner, "--json"]).stdout.contains(#""status":"failed""#)
        }
        let failed = try laptop.run(["view", dinner, "--json"]).stdout
        #expect(failed.contains(late) && failed.contains("M_FORBIDDEN"), "\(failed)")
        #expect(!(try server.messages().contains { $0.body == "too late" }))

        try server.synapse.peer(server.bob, ["send", lunch, "still here?"])
        try waitUntil("the other room still syncs live", timeout: .seconds(120)) {
            try laptop.run(["view", lunchFolder, "--limit", "1"]).stdout.contains("still here?")
        }
        let sent = try laptop.run(["send", lunchFolder, "yes"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        try waitUntil("alice's message to the other room is on the server", timeout: .seconds(120)) {
            try server.messages(lunch).contains { $0.cmid == sent }
        }
    }
}
