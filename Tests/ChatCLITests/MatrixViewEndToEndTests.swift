import ChatDomain
import ChatTestSupport
import Foundation
import Testing

/// How a Matrix store's records read through the real binary: edits shown on the message they
/// edit, redactions, kinds, and what `list` and `search` make of them.
@Suite(.ownThreads) struct MatrixViewEndToEndTests {
    typealias Home = MatrixStoreEndToEndTests.Home
    static let folder = MatrixStoreEndToEndTests.folder
    static let bob = "@bob:example.org"
    static let alice = "@alice:example.org"

    /// One record line of a Matrix segment, keys sorted as the writer writes them; sent at
    /// `minute` past 10:00 on 2026-11-29, with the client ID derived from the event ID.
    static func record(
        _ sequence: Int, _ event: String, _ sender: String, _ text: String, kind: String? = nil,
        redacted: Bool = false, replaces: String? = nil, minute: Int
    ) throws -> String {
        let id = ClientMessageID.derived(fromEventID: try EventID(event)).rawValue
        var line = "{\"clientMessageId\":\"\(id)\",\"eventId\":\"\(event)\","
        if let kind { line += "\"kind\":\"\(kind)\"," }
        if redacted { line += "\"redacted\":true," }
        if let replaces { line += "\"replaces\":\"\(replaces)\"," }
        let time = "2026-11-29T10:" + (minute < 10 ? "0" : "") + "\(minute):00.000Z"
        return line + "\"senderId\":\"\(sender)\",\"sentAt\":\"\(time)\",\"sequence\":\(sequence),\"text\":\"\(text)\"}"
    }

    /// Alice's Matrix store with the Dinner room holding `records` in its first segment (the
    /// numbering's anchor, 1,000,000,001 on), checked by `chatdir check`.
    static func seeded(_ records: [String], positions: String? = nil) throws -> Home {
        let home = try Home()
        try home.initMatrix()
        try home.addRoom()
        let directory = home.store + "/conversations/" + folder
        var files = [
            "messages/1000000001-1000000100.json": "[\n" + records.joined(separator: ",\n") + "\n]\n"
        ]
        if let positions { files["positions.json"] = positions }
        try FileManager.default.createDirectory(
            atPath: directory + "/messages", withIntermediateDirectories: false,
            attributes: [.posixPermissions: 0o700])
        for (name, text) in files {
            let path = directory + "/" + name
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
        }
        let checked = try home.run(["check", "--store", home.store])
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        return home
    }

    /// Bob's messages of every kind, with edits that count and edits that do not.
    static func dinner() throws -> Home {
        try seeded([
            try record(1_000_000_001, "$ev1", bob, "On my way", minute: 1),
            try record(1_000_000_002, "$ev2", bob, "waves", kind: "emote", minute: 2),
            try record(1_000_000_003, "$ev3", bob, "On my way, 5 min", replaces: "$ev1", minute: 3),
            // Another member's edit of bob's message: ignored, as the Matrix specification says.
            try record(1_000_000_004, "$ev4", alice, "hijacked", replaces: "$ev1", minute: 4),
            try record(1_000_000_005, "$ev5", bob, "cat.png", kind: "image", minute: 5),
            try record(1_000_000_006, "$ev6", bob, "", redacted: true, minute: 6),
            // An edit of a deleted message: it stays deleted.
            try record(1_000_000_007, "$ev7", bob, "resurrected", replaces: "$ev6", minute: 7),
            try record(1_000_000_008, "$ev8", bob, "", kind: "unreadable", minute: 8),
            try record(1_000_000_009, "$ev9", bob, "Reminder: 8pm", kind: "notice", minute: 9),
            try record(1_000_000_010, "$ev10", bob, "Lunch?", kind: "org.example.poll", minute: 10),
            // An edit of a message older than the stored history: nothing to show it on.
            try record(1_000_000_011, "$ev11", bob, "lost edit", replaces: "$gone", minute: 11),
        ])
    }

    @Test("view shows edits on their message, deleted messages, and each kind in words")
    func viewText() throws {
        let home = try Self.dinner()
        let viewed = try home.run(["view", "--store", home.store, Self.folder])
        #expect(viewed.status == 0, "\(viewed.stderr)")
        #expect(
            viewed.lines == [
                "2026-11-29 10:01  @bob:example.org  On my way, 5 min (edited)",
                "2026-11-29 10:02  @bob:example.org  * waves",
                "2026-11-29 10:05  @bob:example.org  [image] cat.png",
                "2026-11-29 10:06  @bob:example.org  (message deleted)",
                "2026-11-29 10:08  @bob:example.org  (a message chatdir cannot read)",
                "2026-11-29 10:09  @bob:example.org  Reminder: 8pm",
                "2026-11-29 10:10  @bob:example.org  [org.example.poll] Lunch?",
            ], "\(viewed.stdout)")
    }

    @Test(
        "view --before, scrolled back past the edits, shows each message with its newest text, from the same segment and from a later one; other members' edits and edits of deleted messages still count for nothing"
    )
    func viewBeforeEdits() throws {
        let home = try Self.dinner()
        // An edit of bob's emote in the next segment file.
        let next = home.store + "/conversations/" + Self.folder + "/messages/1000000101-1000000200.json"
        let edit = try Self.record(
            1_000_000_101, "$ev101", Self.bob, "dances", kind: "emote", replaces: "$ev2", minute: 12)
        try Data(("[\n" + edit + "\n]\n").utf8).write(to: URL(fileURLWithPath: next))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: next)
        let checked = try home.run(["check", "--store", home.store])
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")

        let before = try home.run(["view", "--store", home.store, Self.folder, "--before", "1000000003"])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(
            before.lines == [
                "2026-11-29 10:01  @bob:example.org  On my way, 5 min (edited)",
                "2026-11-29 10:02  @bob:example.org  * dances (edited)",
            ], "\(before.stdout)")
        let deleted = try home.run([
            "view", "--json", "--store", home.store, Self.folder, "--before", "1000000007", "--limit", "1",
        ])
        #expect(deleted.lines.count == 1 && deleted.stdout.contains("\"redacted\":true"), "\(deleted.stdout)")
        #expect(!deleted.stdout.contains("resurrected") && !deleted.stdout.contains("edited"), "\(deleted.stdout)")
    }

    @Test(
        "view --limit counts messages, not records: the newest record an edit, --limit 1 still shows the newest message"
    )
    func limitCountsMessages() throws {
        let home = try Self.dinner()
        let one = try home.run(["view", "--store", home.store, Self.folder, "--limit", "1"])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(one.lines == ["2026-11-29 10:10  @bob:example.org  [org.example.poll] Lunch?"], "\(one.stdout)")
        let three = try home.run(["view", "--store", home.store, Self.folder, "--limit", "3"])
        #expect(
            three.lines == [
                "2026-11-29 10:08  @bob:example.org  (a message chatdir cannot read)",
                "2026-11-29 10:09  @bob:example.org  Reminder: 8pm",
                "2026-11-29 10:10  @bob:example.org  [org.example.poll] Lunch?",
            ], "\(three.stdout)")
        // Scrolled back past the edit of the deleted message: still two rows for --limit 2.
        let back = try home.run(["view", "--store", home.store, Self.folder, "--limit", "2", "--before", "1000000008"])
        #expect(
            back.lines == [
                "2026-11-29 10:05  @bob:example.org  [image] cat.png",
                "2026-11-29 10:06  @bob:example.org  (message deleted)",
            ], "\(back.stdout)")
    }

    @Test("view --json rows carry the newest text, kind, edited and redacted")
    func viewJSON() throws {
        let home = try Self.dinner()
        let viewed = try home.run(["view", "--json", "--store", home.store, Self.folder])
        #expect(viewed.status == 0, "\(viewed.stderr)")
        func row(_ sequence: Int, _ event: String, _ time: String, _ text: String, _ extra: String) throws -> String {
            let id = ClientMessageID.derived(fromEventID: try EventID(event)).rawValue
            return
                "{\"conversationId\":\"\(Self.folder)\",\"clientMessageId\":\"\(id)\",\"sequence\":\(sequence),\"senderId\":\"@bob:example.org\",\"mine\":false,\"time\":\"2026-11-29T10:\(time):00.000Z\",\"text\":\"\(text)\",\(extra)\"status\":\"incoming\"}"
        }
        #expect(
            viewed.lines == [
                try row(1_000_000_001, "$ev1", "01", "On my way, 5 min", "\"edited\":true,"),
                try row(1_000_000_002, "$ev2", "02", "waves", "\"kind\":\"emote\","),
                try row(1_000_000_005, "$ev5", "05", "cat.png", "\"kind\":\"image\","),
                try row(1_000_000_006, "$ev6", "06", "", "\"redacted\":true,"),
                try row(1_000_000_008, "$ev8", "08", "", "\"kind\":\"unreadable\","),
                try row(1_000_000_009, "$ev9", "09", "Reminder: 8pm", "\"kind\":\"notice\","),
                try row(1_000_000_010, "$ev10", "10", "Lunch?", "\"kind\":\"org.example.poll\","),
            ], "\(viewed.stdout)")
    }

    @Test("list counts no edit as unread and previews the newest message as view shows it")
    func listIgnoresEdits() throws {
        let home = try Self.dinner()
        let listed = try home.run(["list", "--store", home.store])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(
            listed.lines == [
                "\(Self.folder)  Dinner  (7 unread)  2026-11-29 10:10 @bob:example.org: [org.example.poll] Lunch?"
            ], "\(listed.stdout)")
    }

    @Test(
        "list previews an edited last message with its newest text, read or not",
        arguments: [
            (nil, "  (1 unread)"),
            ("{\n\"@alice:example.org\":{\"deliveredUpTo\":0,\"readUpTo\":1000000003}\n}\n", ""),
        ] as [(String?, String)])
    func listShowsEditedLast(positions: String?, counts: String) throws {
        let home = try Self.seeded(
            [
                try Self.record(1_000_000_001, "$ev1", Self.bob, "Table for 4", minute: 1),
                try Self.record(1_000_000_002, "$ev2", Self.bob, "Table for 5", replaces: "$ev1", minute: 2),
                try Self.record(1_000_000_003, "$ev3", Self.bob, "Table for 6", replaces: "$ev1", minute: 3),
            ], positions: positions)
        let listed = try home.run(["list", "--store", home.store])
        #expect(listed.status == 0, "\(listed.stderr)")
        #expect(
            listed.lines == [
                "\(Self.folder)  Dinner\(counts)  2026-11-29 10:01 @bob:example.org: Table for 6 (edited)"
            ], "\(listed.stdout)")
        let json = try home.run(["list", "--json", "--store", home.store])
        #expect(
            json.stdout.contains(
                "\"lastMessage\":{\"sequence\":1000000001,\"senderId\":\"@bob:example.org\",\"sentAt\":\"2026-11-29T10:01:00.000Z\",\"text\":\"Table for 6\",\"edited\":true}"
            ), "\(json.stdout)")
    }

    @Test("search finds an edited message by its newest text, and never an edit or a deleted message")
    func search() throws {
        let home = try Self.dinner()
        let found = try home.run(["search", "--store", home.store, "5 min"])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.lines == ["\(Self.folder):1000000001  2026-11-29 10:01  @bob:example.org  On my way, 5 min"])
        for hidden in ["hijacked", "resurrected", "lost edit"] {
            let result = try home.run(["search", "--store", home.store, hidden])
            #expect(result.status == 1, "\(hidden): \(result.stdout)")
            #expect(result.stdout.isEmpty)
        }
        let regex = try home.run(["search", "--store", home.store, "--regex", "^On my way$"])
        #expect(regex.status == 1, "the first text was replaced by the edit: \(regex.stdout)")
    }
}

/// The chat screen on the same seeded store, in a real terminal (tmux).
@Suite(.ownThreads, .enabled(if: Tmux.isAvailable, "tmux is not installed (.ci/run installs it)"))
struct MatrixChatEndToEndTests {
    @Test("chat shows an edited message with its newest text and a deleted one in words")
    func chatScreen() throws {
        let home = try MatrixViewEndToEndTests.dinner()
        let tmux = Tmux()
        defer { tmux.shutDown() }
        let command =
            "env TZ=UTC NO_COLOR=1 HOME=\(home.directory.path) XDG_RUNTIME_DIR=\(home.directory.path) \(ChatdirProcess.executable.path) chat \(MatrixViewEndToEndTests.folder) --store \(home.store); sleep 600"
        try tmux.run(["new-session", "-d", "-s", "matrix", "-x", "100", "-y", "20", command])
        #expect(
            try waitUntil {
                let pane = try tmux.pane("matrix")
                // Senders are padded to the widest member's ID, alice's among them.
                return pane.contains { $0.contains("@bob:example.org    On my way, 5 min (edited)") }
                    && pane.contains { $0.contains("@bob:example.org    (message deleted)") }
            }, "\(tmux.screen("matrix"))")
        let pane = try tmux.pane("matrix")
        #expect(!pane.contains { $0.contains("hijacked") || $0.contains("resurrected") }, "\(tmux.screen("matrix"))")
    }

    @Test(
        "chat scrolled back above what it follows: a message there redacted and another edited meanwhile change on the screen, where the reader stands"
    )
    func chatScrolledBackSeesChanges() throws {
        // 130 messages: the screen follows the newest 100, and reads 1 to 30 when scrolled up.
        func records(_ sequences: ClosedRange<Int>, redacting: Int? = nil) throws -> [String] {
            try sequences.map { number in
                try MatrixViewEndToEndTests.record(
                    1_000_000_000 + number, "$ev\(number)", MatrixViewEndToEndTests.bob,
                    number == redacting ? "" : "message \(number)",
                    redacted: number == redacting, minute: number % 60)
            }
        }
        let home = try MatrixViewEndToEndTests.seeded(try records(1...100))
        let messages = home.store + "/conversations/" + MatrixViewEndToEndTests.folder + "/messages/"
        /// Replaces a segment as the store's writer does: a temporary file renamed over it.
        func replace(_ name: String, with lines: [String]) throws {
            let temporary = messages + ".replace.tmp"
            try Data(("[\n" + lines.joined(separator: ",\n") + "\n]\n").utf8).write(to: URL(fileURLWithPath: temporary))
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary)
            #expect(rename(temporary, messages + name) == 0)
        }
        let newer = try records(101...130)
        try replace("1000000101-1000000200.json", with: newer)

        let tmux = Tmux()
        defer { tmux.shutDown() }
        let command =
            "env TZ=UTC NO_COLOR=1 HOME=\(home.directory.path) XDG_RUNTIME_DIR=\(home.directory.path) \(ChatdirProcess.executable.path) chat \(MatrixViewEndToEndTests.folder) --store \(home.store); sleep 600"
        try tmux.run(["new-session", "-d", "-s", "older", "-x", "100", "-y", "20", command])
        func shows(_ text: String) throws -> Bool { try tmux.pane("older").contains { $0.hasSuffix(text) } }
        #expect(try waitUntil { try shows("message 130") }, "\(tmux.screen("older"))")
        #expect(
            try waitUntil(timeout: .seconds(90)) {
                if try shows("message 5") && shows("message 6") { return true }
                let before = try tmux.pane("older")
                try tmux.run(["send-keys", "-t", "older", "PageUp"])
                _ = try waitUntil(timeout: .seconds(2)) { try tmux.pane("older") != before }
                return false
            }, "\(tmux.screen("older"))")

        try replace("1000000001-1000000100.json", with: try records(1...100, redacting: 5))
        try replace(
            "1000000101-1000000200.json",
            with: newer + [
                try MatrixViewEndToEndTests.record(
                    1_000_000_131, "$ev131", MatrixViewEndToEndTests.bob, "message six, edited", replaces: "$ev6",
                    minute: 11)
            ])
        #expect(
            try waitUntil { try shows("(message deleted)") && shows("message six, edited (edited)") },
            "\(tmux.screen("older"))")
        #expect(try !shows("message 5"), "\(tmux.screen("older"))")
    }
}
