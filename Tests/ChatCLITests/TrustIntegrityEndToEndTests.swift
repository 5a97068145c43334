import ChatServer
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

/// `chatdir sync` against a server that was restored from an older copy of its data: what a
/// user sees (exit status, the words on stderr) and what stays on disk.
@Suite(.ownThreads) struct TrustIntegrityEndToEndTests {
    @Test(
        "a server restarted from older data: sync exits 76, says where the histories differ and what to do, and the message stays queued"
    )
    func serverHistoryWentBackwards() throws {
        let directory = try TemporaryDirectory()
        let data = try copyStore(packageRoot.appendingPathComponent("SampleData/server"), into: directory, as: "server")
        let old = try copyStore(
            packageRoot.appendingPathComponent("SampleData/server"), into: directory, as: "server-old")
        // Restarted below on the same port: one no other test's connection can take meanwhile.
        var server: ChatServer? = try startOnRestartablePort(isAddressInUse: {
            ($0 as? ServerError)?.isAddressInUse == true
        }) { port in
            let server = try ChatServer(configuration: ServerConfiguration(dataDirectory: data, port: port))
            try server.start()
            return server
        }
        defer { server?.stop() }
        let url = "http://127.0.0.1:\(server?.port ?? 0)"
        let alice = directory.file("alice")
        let bob = directory.file("bob")
        for (user, path) in [("alice", alice), ("bob", bob)] {
            #expect(try ChatdirProcess.run(["init", "--user", user, "--server", url, path]).status == 0)
        }
        // Bob adds a message after the copy was taken; alice stores it.
        #expect(
            try ChatdirProcess.run(["sync", "--store", bob], environment: ["CHATDIR_TOKEN": "bob-token"]).status == 0)
        #expect(try ChatdirProcess.run(["send", "--store", bob, "alice-bob", "after the backup"]).status == 0)
        #expect(
            try ChatdirProcess.run(["sync", "--store", bob], environment: ["CHATDIR_TOKEN": "bob-token"]).status == 0)
        #expect(
            try ChatdirProcess.run(["sync", "--store", alice], environment: ["CHATDIR_TOKEN": "alice-token"]).status
                == 0)
        let before = try snapshotFiles(alice + "/conversations/alice-bob/messages")
        let newest = try #require(
            before.values.map { String(decoding: $0, as: UTF8.self) }.first { $0.contains("after the backup") })
        let newestSequence = try #require(
            newest.components(separatedBy: "\"sequence\":").last.flatMap { Int($0.prefix { $0.isNumber }) })

        // The server comes back from the older copy, on the same address.
        let port = server?.port ?? 0
        server?.stop()
        // Let go of the old server before binding again: its deinit closes the listener even
        // when stop() gave up waiting for a slow accept thread (a parallel run met EADDRINUSE
        // for the whole 20 s of retries while the old object was still referenced).
        server = nil
        server = try restartOnSamePort(port, isAddressInUse: { ($0 as? ServerError)?.isAddressInUse == true }) { port in
            let server = try ChatServer(configuration: ServerConfiguration(dataDirectory: old, port: port))
            try server.start()
            return server
        }

        #expect(try ChatdirProcess.run(["send", "--store", alice, "alice-bob", "hi"]).status == 0)
        let sync = try ChatdirProcess.run(["sync", "--store", alice], environment: ["CHATDIR_TOKEN": "alice-token"])
        #expect(sync.status == 76, "\(sync.stderr)")
        #expect(
            sync.stderr.contains(
                "chatdir sync: alice-bob: the server broke the wire contract: the server's history differs from the store's at sequence \(newestSequence)"
            ), "\(sync.stderr)")
        #expect(
            sync.stderr.contains(
                "this conversation's outbox keeps its messages; ask the server's operator to restore its data, or move this store aside and sync a new one"
            ))
        #expect(sync.stdout == "not synced: 1 still pending\n", "\(sync.stdout)")
        // Nothing of the conversation changed, "hi" is still queued, and view still works.
        #expect(try snapshotFiles(alice + "/conversations/alice-bob/messages") == before)
        let outbox = try FileManager.default.contentsOfDirectory(atPath: alice + "/conversations/alice-bob/outbox")
            .filter { !$0.hasPrefix(".") }
        #expect(outbox.count == 1)
        let view = try ChatdirProcess.run(["view", "--store", alice, "alice-bob"])
        #expect(view.status == 0)
        #expect(view.lines.last?.contains("hi") == true, "\(view.stdout)")
        #expect(view.lines.last?.contains("✓ sent") == false)
    }

    /// A reference server on a port it can be restarted on, over a copy of SampleData/server.
    final class RestartableServer {
        let data: String
        var server: ChatServer?
        let port: Int
        var url: String { "http://127.0.0.1:\(port)" }

        init(in directory: TemporaryDirectory) throws {
            data = try copyStore(packageRoot.appendingPathComponent("SampleData/server"), into: directory, as: "server")
            let data = data
            let server = try startOnRestartablePort(isAddressInUse: { ($0 as? ServerError)?.isAddressInUse == true }) {
                port in
                let server = try ChatServer(configuration: ServerConfiguration(dataDirectory: data, port: port))
                try server.start()
                return server
            }
            self.server = server
            port = server.port
        }

        /// Stops the server, lets `change` edit its data directory, and starts it again on the same port.
        func restart(changing change: (String) throws -> Void) throws {
            server?.stop()
            server = nil
            try change(data)
            let data = data
            server = try restartOnSamePort(port, isAddressInUse: { ($0 as? ServerError)?.isAddressInUse == true }) {
                port in
                let server = try ChatServer(configuration: ServerConfiguration(dataDirectory: data, port: port))
                try server.start()
                return server
            }
        }

        deinit { server?.stop() }
    }

    /// Appends `record` (one canonical line) as the last record of the server's `dinner` segment.
    static func plant(_ record: String, in data: String) throws {
        let path = data + "/conversations/dinner/messages/0000000001-0000000100.json"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.hasSuffix("}\n]\n"))
        text.removeLast(3)
        text += ",\n" + record + "\n]\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// The next sequence of the server's `dinner` conversation.
    static func nextSequence(in data: String) throws -> Int {
        let text = try String(
            contentsOfFile: data + "/conversations/dinner/messages/0000000001-0000000100.json", encoding: .utf8)
        return text.components(separatedBy: "\"sequence\":").count
    }

    @Test(
        "a server that holds my queued message's ID as another member's, or with other words: refused as a differing history on every pass, the message kept in the outbox, nothing stored",
        arguments: ["bob", "alice"])
    func wordsInMyMouth(_ sender: String) throws {
        let directory = try TemporaryDirectory()
        let server = try RestartableServer(in: directory)
        let alice = directory.file("alice")
        let token = ["CHATDIR_TOKEN": "alice-token"]
        #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", server.url, alice]).status == 0)
        #expect(try ChatdirProcess.run(["sync", "--store", alice], environment: token).status == 0)
        let sent = try ChatdirProcess.run(["send", "--store", alice, "dinner", "see you at 8"])
        let id = sent.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(sent.status == 0 && id.count == 36, "\(sent.stderr)")
        // The server holds my client message ID: as bob's message, or as mine with other words.
        let text = sender == "alice" ? "I owe you 1000 EUR" : "see you at 8"
        try server.restart { data in
            let sequence = try Self.nextSequence(in: data)
            try Self.plant(
                #"{"clientMessageId":"\#(id)","senderId":"\#(sender)","sentAt":"2026-12-05T20:00:00.000Z","sequence":\#(sequence),"text":"\#(text)"}"#,
                in: data)
        }
        let before = try snapshotFiles(alice + "/conversations/dinner/messages")
        for pass in 1...2 {
            let sync = try ChatdirProcess.run(["sync", "--store", alice], environment: token)
            #expect(sync.status == 76, "pass \(pass): \(sync.stderr)")
            let how = sender == "alice" ? "with other text than the outbox's" : "as sent by bob"
            #expect(
                sync.stderr.contains(
                    "chatdir sync: dinner: the server broke the wire contract: the server's history differs from the store's at sequence 5: the server has my queued message \(id) there \(how)"
                ), "pass \(pass): \(sync.stderr)")
            #expect(
                sync.stderr.contains("this conversation's outbox keeps its messages"), "pass \(pass): \(sync.stderr)")
            #expect(
                try snapshotFiles(alice + "/conversations/dinner/messages") == before,
                "pass \(pass) stored the server's record")
        }
        let outbox = try FileManager.default.contentsOfDirectory(atPath: alice + "/conversations/dinner/outbox").filter
        { $0.hasSuffix(id + ".json") }
        #expect(outbox.count == 1)
        let view = try ChatdirProcess.run(["view", "--store", alice, "dinner"])
        #expect(!view.stdout.contains("I owe you"), "\(view.stdout)")
        #expect(
            view.lines.last?.contains("see you at 8") == true && view.lines.last?.contains("pending") == true,
            "\(view.stdout)")
    }
}
