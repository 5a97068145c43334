import ChatDomain
import ChatServer
import ChatStore
import ChatTestSupport
import Foundation
import Testing

/// `chatdir create` as a user runs it: offline, then `send`, then `sync` against the reference
/// server (SampleData/server in this process), and against one without the endpoint.
@Suite(.ownThreads) struct CreateEndToEndTests {
    static func store(_ user: String, _ directory: TemporaryDirectory, _ server: TestServer) throws -> String {
        let path = directory.file(user)
        #expect(try ChatdirProcess.run(["init", "--user", user, "--server", server.url, path]).status == 0)
        return path
    }

    static func sync(_ store: String, _ user: String) throws -> ChatdirProcess.Result {
        try ChatdirProcess.run(["sync", "--store", store], environment: ["CHATDIR_TOKEN": "\(user)-token"])
    }

    @Test("create offline, send, sync: the server has the conversation and the message once; bob's sync sees both")
    func createSendSync() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        let alice = try Self.store("alice", directory, server)
        let created = try ChatdirProcess.run([
            "create", "--store", alice, "lunch", "--title", "Lunch on Friday", "--member", "bob", "--member", "carol",
        ])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout == "lunch\n")
        let info = try String(contentsOfFile: alice + "/conversations/lunch/conversation.json", encoding: .utf8)
        #expect(info == "{\n\"members\":[\"alice\",\"bob\",\"carol\"],\n\"title\":\"Lunch on Friday\"\n}\n")
        #expect(try ChatdirProcess.run(["send", "--store", alice, "lunch", "noon?"]).status == 0)
        #expect(try ChatdirProcess.run(["check", alice]).status == 0)
        // list says the conversation is not on the server yet, in text and JSON.
        let before = try ChatdirProcess.run(["list", "--store", alice])
        #expect(
            before.lines.first { $0.hasPrefix("lunch ") }?.contains("(1 pending, not on the server yet)") == true,
            "\(before.stdout)")
        let beforeJSON = try ChatdirProcess.run(["list", "--store", alice, "--json"])
        #expect(
            beforeJSON.lines.first { $0.contains(#""id":"lunch""#) }?.contains(#""creation":"pending""#) == true,
            "\(beforeJSON.stdout)")

        let synced = try Self.sync(alice, "alice")
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout == "synced 3 conversations, 7 new messages, 1 sent\n")
        #expect(!FileManager.default.fileExists(atPath: alice + "/conversations/lunch/outbox/create.json"))
        let segment = try String(
            contentsOfFile: server.data + "/conversations/lunch/messages/0000000001-0000000100.json", encoding: .utf8)
        #expect(segment.components(separatedBy: "noon?").count == 2, "the message is on the server once: \(segment)")
        let after = try ChatdirProcess.run(["list", "--store", alice])
        #expect(after.lines.first { $0.hasPrefix("lunch ") }?.contains("server") == false, "\(after.stdout)")
        #expect(try ChatdirProcess.run(["list", "--store", alice, "--json"]).stdout.contains("creation") == false)
        // Synced again (as after a lost answer): nothing is sent twice.
        #expect(try Self.sync(alice, "alice").stdout == "synced 3 conversations, 0 new messages, 0 sent\n")

        let bob = try Self.store("bob", directory, server)
        #expect(try Self.sync(bob, "bob").status == 0)
        let view = try ChatdirProcess.run(["view", "--store", bob, "lunch"])
        #expect(view.lines.last?.contains("alice  noon?") == true, "\(view.stdout)")
        let list = try ChatdirProcess.run(["list", "--store", bob])
        #expect(list.stdout.contains("lunch"), "\(list.stdout)")
    }

    @Test("against a server without the endpoint: the failure's words, exit 65, the other conversations unaffected")
    func serverWithoutEndpoint() throws {
        let server = try TestServer(faults: "no-start=404", sampleData: true)
        let directory = try TemporaryDirectory()
        let alice = try Self.store("alice", directory, server)
        #expect(try Self.sync(alice, "alice").status == 0)
        #expect(
            try ChatdirProcess.run(["create", "--store", alice, "lunch", "--title", "Lunch", "--member", "bob"]).status
                == 0)
        #expect(try ChatdirProcess.run(["send", "--store", alice, "lunch", "kept"]).status == 0)
        #expect(try ChatdirProcess.run(["send", "--store", alice, "dinner", "delivered"]).status == 0)
        let synced = try Self.sync(alice, "alice")
        #expect(synced.status == 65, "\(synced.stdout) \(synced.stderr)")
        #expect(synced.stdout.contains("1 sent") && synced.stdout.contains("1 failed"), "\(synced.stdout)")
        #expect(synced.stderr.contains("lunch: this server cannot start conversations (404"), "\(synced.stderr)")
        let dinner = try ChatdirProcess.run(["view", "--store", alice, "dinner"])
        #expect(dinner.lines.last?.contains("delivered  ✓") == true, "\(dinner.stdout)")
        let creation = try String(contentsOfFile: alice + "/conversations/lunch/outbox/create.json", encoding: .utf8)
        #expect(
            creation.contains("\"state\":\"failed\"") && creation.contains("this server cannot start conversations"))
        let outbox = try FileManager.default.contentsOfDirectory(atPath: alice + "/conversations/lunch/outbox").filter {
            $0 != "create.json"
        }
        #expect(outbox.count == 1, "the message waits: \(outbox)")
        #expect(!FileManager.default.fileExists(atPath: server.data + "/conversations/lunch"))
        // status names the refusal, and the way to queue it again.
        let refused = try ChatdirProcess.run(["status", "--store", alice])
        let lunch = refused.lines.first { $0.hasPrefix("  lunch ") }
        #expect(
            lunch?.contains("the server refused to create it: this server cannot start conversations (404") == true,
            "\(refused.stdout)")
        #expect(
            lunch?.contains("chatdir create --store ") == true
                && lunch?.contains(" lunch --retry queues it again") == true, "\(refused.stdout)")
        #expect(refused.lines.first { $0.hasPrefix("  dinner ") }?.contains("create") == false, "\(refused.stdout)")
        let listed = try ChatdirProcess.run(["list", "--store", alice])
        #expect(
            listed.lines.first { $0.hasPrefix("lunch ") }?.contains("(1 pending, the server refused to create it)")
                == true, "\(listed.stdout)")
        #expect(listed.lines.first { $0.hasPrefix("dinner ") }?.contains("server") == false, "\(listed.stdout)")
        let listedJSON = try ChatdirProcess.run(["list", "--store", alice, "--json"])
        #expect(
            listedJSON.lines.first { $0.contains(#""id":"lunch""#) }?.contains(#""creation":"failed""#) == true,
            "\(listedJSON.stdout)")
        let refusedJSON = try ChatdirProcess.run(["status", "--store", alice, "--json"])
        #expect(
            refusedJSON.stdout.contains(#""creation":{"error":"this server cannot start conversations (404"#),
            "\(refusedJSON.stdout)")
        #expect(refusedJSON.stdout.contains(#""creation":null"#), "dinner has none: \(refusedJSON.stdout)")
        // Queued again, it goes out with the next pass (and is refused again by this server).
        let retried = try ChatdirProcess.run(["create", "--store", alice, "lunch", "--retry"])
        #expect(retried.status == 0 && retried.stdout.contains("queued the creation of lunch again"), "\(retried)")
        #expect(
            try String(contentsOfFile: alice + "/conversations/lunch/outbox/create.json", encoding: .utf8).contains(
                "\"state\":\"pending\""))
        let pending = try ChatdirProcess.run(["create", "--store", alice, "lunch", "--retry"])
        #expect(pending.status == 0 && pending.stderr.contains("already queued"), "\(pending)")
        let waiting = try ChatdirProcess.run(["status", "--store", alice])
        #expect(waiting.status == 75)
        #expect(
            waiting.stderr.contains("1 message and 1 conversation creation wait and no sync worker runs"),
            "\(waiting.stderr)")
        #expect(
            waiting.lines.first { $0.hasPrefix("  lunch ") }?.contains("not on the server yet") == true,
            "\(waiting.stdout)")
        #expect(try Self.sync(alice, "alice").status == 65)
        let none = try ChatdirProcess.run(["create", "--store", alice, "dinner", "--retry"])
        #expect(none.status == 66 && none.stderr.contains("dinner has no creation waiting"), "\(none)")
    }

    @Test("an ID the store has already, a bad ID, a missing title or member: clear errors, nothing written")
    func refused() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        let alice = try Self.store("alice", directory, server)
        #expect(
            try ChatdirProcess.run(["create", "--store", alice, "lunch", "--title", "Lunch", "--member", "bob"]).status
                == 0)
        let again = try ChatdirProcess.run([
            "create", "--store", alice, "lunch", "--title", "Other", "--member", "carol",
        ])
        #expect(again.status == 73)
        #expect(
            again.stderr.contains("conversation \"lunch\" exists in this store already; pick another ID"),
            "\(again.stderr)")
        let bad = try ChatdirProcess.run(["create", "--store", alice, "../x", "--title", "T", "--member", "bob"])
        #expect(bad.status == 64)
        let noTitle = try ChatdirProcess.run(["create", "--store", alice, "x", "--member", "bob"])
        #expect(noTitle.status == 64 && noTitle.stderr.contains("missing --title"))
        let noMember = try ChatdirProcess.run(["create", "--store", alice, "x", "--title", "T"])
        #expect(noMember.status == 64 && noMember.stderr.contains("missing --member"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: alice + "/conversations") == ["lunch"])
        let help = try ChatdirProcess.run(["create", "--help"])
        #expect(help.status == 0 && help.stdout.contains("--member USER") && help.stdout.contains("Example:"))
    }
}
