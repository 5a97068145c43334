import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatSync

/// A server that breaks the contract on purpose: the client must say so clearly, store nothing
/// from the broken answer, write nothing outside the store, and not crash.
@Suite(.ownThreads) struct HostileServerTests {
    static let good = #"{"id":"c1","title":"Fine","members":["alice","bob"],"lastSequence":1}"#
    static let goodMessage =
        #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","senderId":"bob","text":"hi","sequence":1,"sentAt":"2026-11-29T10:00:00.000Z"}"#

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var conversations: String
        var messages: String
        var status: Int = 200
        var expected: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "a ../ conversation ID",
            conversations: #"{"items":[{"id":"../escape","title":"x","members":["alice"],"lastSequence":1}]}"#,
            messages: "", expected: "invalid conversation ID \"../escape\""),
        Case(
            name: "a negative sequence", conversations: "{\"items\":[\(good)]}",
            messages:
                #"{"items":[{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","senderId":"bob","text":"hi","sequence":-4,"sentAt":"t"}],"hasMore":false}"#,
            expected: "\"sequence\" is -4, outside 1…"),
        Case(
            name: "a huge sequence", conversations: "{\"items\":[\(good)]}",
            messages:
                #"{"items":[{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","senderId":"bob","text":"hi","sequence":99999999999999999999,"sentAt":"t"}],"hasMore":false}"#,
            expected: "\"sequence\" must be a whole number"),
        Case(
            name: "wrong types", conversations: "{\"items\":[\(good)]}",
            messages:
                #"{"items":[{"clientMessageId":7,"senderId":"bob","text":"hi","sequence":1,"sentAt":"t"}],"hasMore":false}"#,
            expected: "\"clientMessageId\" must be a string"),
        Case(
            name: "a sender that is a path", conversations: "{\"items\":[\(good)]}",
            messages:
                #"{"items":[{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","senderId":"../../etc","text":"hi","sequence":1,"sentAt":"t"}],"hasMore":false}"#,
            expected: "invalid user ID \"../../etc\""),
        Case(
            name: "a 10 MB body", conversations: "{\"items\":[\(good)]}",
            messages: "{\"items\":[" + String(repeating: goodMessage + ",", count: 80_000) + goodMessage
                + "],\"hasMore\":false}",
            expected: "over the 8388608-byte limit"),
        Case(name: "not JSON", conversations: "<html>", messages: "", expected: "is not valid JSON"),
        // 6 MiB, under the 8 MiB cap: refused at the key cap at once instead of comparing keys for minutes.
        Case(
            name: "one object of 500,000 keys", conversations: "{\"items\":[\(good)]}",
            messages: "{" + (0..<500_000).map { "\"k\($0)\":0" }.joined(separator: ",") + "}",
            expected: "an object has more than 10000 keys"),
        Case(
            name: "an array of 1,000,001 elements", conversations: "{\"items\":[\(good)]}",
            messages: "{\"items\":[" + String(repeating: "0,", count: 1_000_000) + "0],\"hasMore\":false}",
            expected: "an array has more than 1000000 elements"),
    ]

    @Test("a server that breaks the contract gets a clear error and writes nothing", arguments: cases)
    func hostile(_ hostile: Case) async throws {
        let server = try CannedServer { method, path in
            if path == "/v1/me" { return .json(200, #"{"userId":"alice"}"#) }
            if path == "/v1/conversations" { return .json(hostile.status, hostile.conversations) }
            if path.contains("/messages") { return .json(200, hostile.messages) }
            if path.contains("/receipts") { return .json(200, #"{"members":[]}"#) }
            return .json(404, #"{"error":"no"}"#)
        }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.path + "/store", manifest: Manifest(userID: try UserID("alice")))
        // The rule under test is the contract, not the clock: deadlines far past what decoding
        // the biggest case takes on a loaded machine (1,000,001 elements took over the 10 s
        // request deadline in a parallel run, a temporary failure instead of the cap).
        var options = SyncEngine.Options()
        options.requestTimeout = .seconds(300)
        options.passBudget = .seconds(600)
        let engine = try SyncEngine(
            store: store, server: try ServerAddress(server.url), token: "secret-token", options: options)
        let report = await engine.syncOnce()
        #expect(report.outcome == .contractBroken, "\(report.problems)")
        #expect(
            report.problems.contains { $0.contains("broke the wire contract") && $0.contains(hostile.expected) },
            "\(report.problems)")
        #expect(!report.problems.joined().contains("secret-token"))
        // Nothing from the broken answer was stored; nothing exists outside the store.
        let conversation = store.conversation(try ConversationID("c1"))
        #expect(try conversation.newestMessages(limit: 10).messages.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["store"])
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/escape"))
    }

    @Test("401 stops the pass with a message about the token, without retrying")
    func unauthorized() async throws {
        let server = try CannedServer { _, _ in .json(401, #"{"error":"unknown token"}"#) }
        defer { server.stop() }
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.path + "/store", manifest: Manifest(userID: try UserID("alice")))
        let engine = try SyncEngine(store: store, server: try ServerAddress(server.url), token: "secret-token")
        let report = await engine.syncOnce()
        #expect(report.unauthorized)
        #expect(report.outcome == .tokenRefused)
        #expect(
            report.problems == [
                "the server refused the token (401: unknown token); check CHATDIR_TOKEN or --token-file"
            ])
        #expect(server.seenRequests == ["GET /v1/me"])
    }

    @Test("nothing listening: the pass ends at once, exit 75, the outbox untouched")
    func unreachable() async throws {
        let directory = try TemporaryDirectory()
        let store = try Store.create(at: directory.path + "/store", manifest: Manifest(userID: try UserID("alice")))
        let id = try ConversationID("c1")
        try StoreWriter(store: store).saveInfo(ConversationInfo(title: "T", members: []), for: id)
        try Outbox(store.conversation(id)).enqueue("offline")
        let engine = try SyncEngine(store: store, server: ServerAddress(host: "127.0.0.1", port: 9), token: "t")
        let report = await engine.syncOnce()
        #expect(report.outcome == .incomplete)
        #expect(report.stillPending == 1)
        #expect(report.problems.first?.hasPrefix("server unreachable") == true, "\(report.problems)")
        #expect(try store.conversation(id).outbox().map(\.state) == [.pending])
    }
}
