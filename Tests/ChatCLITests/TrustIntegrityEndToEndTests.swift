import ChatServer
import ChatSystem
import Foundation
import Testing
import ChatTestSupport

/// `chatdir sync` against a server that was restored from an older copy of its data: what a
/// user sees (exit status, the words on stderr) and what stays on disk.
@Suite(.ownThreads) struct TrustIntegrityEndToEndTests {
    @Test("a server restarted from older data: sync exits 76, says where the histories differ and what to do, and the message stays queued")
    func serverHistoryWentBackwards() throws {
        let directory = try TemporaryDirectory()
        let data = try copyStore(packageRoot.appendingPathComponent("SampleData/server"), into: directory, as: "server")
        let old = try copyStore(packageRoot.appendingPathComponent("SampleData/server"), into: directory, as: "server-old")
        // Restarted below on the same port: one no other test's connection can take meanwhile.
        var server: ChatServer? = try startOnRestartablePort(isAddressInUse: { ($0 as? ServerError)?.isAddressInUse == true }) { port in
            let server = try ChatServer(configuration: ServerConfiguration(dataDirectory: data, port: port))
            try server.start()
            return server
        }
        defer { server?.stop() }
        let url = "http://127.0.0.1:\(server?.port ?? 0)"
        let alice = directory.file("alice"), bob = directory.file("bob")
        for (user, path) in [("alice", alice), ("bob", bob)] {
            #expect(try ChatdirProcess.run(["init", "--user", user, "--server", url, path]).status == 0)
        }
        // Bob adds a message after the copy was taken; alice stores it.
        #expect(try ChatdirProcess.run(["sync", "--store", bob], environment: ["CHATDIR_TOKEN": "bob-token"]).status == 0)
        #expect(try ChatdirProcess.run(["send", "--store", bob, "alice-bob", "after the backup"]).status == 0)
        #expect(try ChatdirProcess.run(["sync", "--store", bob], environment: ["CHATDIR_TOKEN": "bob-token"]).status == 0)
        #expect(try ChatdirProcess.run(["sync", "--store", alice], environment: ["CHATDIR_TOKEN": "alice-token"]).status == 0)
        let before = try snapshotFiles(alice + "/conversations/alice-bob/messages")
        let newest = try #require(before.values.map { String(decoding: $0, as: UTF8.self) }.first { $0.contains("after the backup") })
        let newestSequence = try #require(newest.components(separatedBy: "\"sequence\":").last.flatMap { Int($0.prefix { $0.isNumber }) })

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
        #expect(sync.stderr.contains("chatdir sync: alice-bob: the server broke the wire contract: the server's history differs from the store's at sequence \(newestSequence)"), "\(sync.stderr)")
        #expect(sync.stderr.contains("this conversation's outbox keeps its messages; ask the server's operator to restore its data, or move this store aside and sync a new one"))
        #expect(sync.stdout.contains("0 sent") && sync.stdout.contains("1 still pending"), "\(sync.stdout)")
        // Nothing of the conversation changed, "hi" is still queued, and view still works.
        #expect(try snapshotFiles(alice + "/conversations/alice-bob/messages") == before)
        let outbox = try FileManager.default.contentsOfDirectory(atPath: alice + "/conversations/alice-bob/outbox").filter { !$0.hasPrefix(".") }
        #expect(outbox.count == 1)
        let view = try ChatdirProcess.run(["view", "--store", alice, "alice-bob"])
        #expect(view.status == 0)
        #expect(view.lines.last?.contains("hi") == true, "\(view.stdout)")
        #expect(view.lines.last?.contains("✓ sent") == false)
    }
}
