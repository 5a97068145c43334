import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// `outbox/create.json` and `Store.startConversation`: a whole conversation at once, the
/// creation read strictly, the writer's two changes to it.
@Suite struct QueuedCreationTests {
    @Test(
        "a started conversation is whole: conversation.json, messages/, outbox/create.json; the outbox lists no message; check is clean"
    )
    func started() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let creation = try store.startConversation(
            c1, title: "Dinner", members: [carol, bob], now: 1_764_633_600_000_000_000)
        #expect(creation.members == [alice, bob, carol])
        let files = try filesUnder(store.root + "/conversations/c1")
        #expect(files.keys.sorted() == ["conversation.json", "outbox/create.json"])
        #expect(
            files["outbox/create.json"].map { String(decoding: $0, as: UTF8.self) }
                == #"{"createdAt":"2025-12-02T00:00:00.000Z","members":["alice","bob","carol"],"state":"pending","title":"Dinner"}"#
                + "\n")
        let conversation = try store.existingConversation(c1)
        #expect(try conversation.outbox().isEmpty)
        #expect(try conversation.info() == ConversationInfo(title: "Dinner", members: [alice, bob, carol]))
        #expect(try conversation.queuedCreation() == creation)
        #expect(StoreChecker.check(root: store.root).problems.isEmpty)
        #expect(throws: StoreError.self) { try store.startConversation(c1, title: "Again", members: [bob]) }
        let hidden = try FileManager.default.contentsOfDirectory(atPath: store.root + "/conversations")
        #expect(hidden == ["c1"], "no hidden build is left behind")
    }

    @Test("a hidden build left by a killed create is removed when a writer starts; a running create's is kept")
    func killedBuildRemoved() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        let conversations = store.root + "/conversations"
        // What `create` leaves when killed before its rename: a whole hidden conversation named
        // after its pid (4194305 is above Linux's pid_max ceiling: no such process).
        let dead = ".c1.4194305.12.tmp"
        let live = ".c2.\(getpid()).13.tmp"
        for build in [dead, live] {
            for sub in ["messages", "outbox"] {
                try FileManager.default.createDirectory(
                    atPath: "\(conversations)/\(build)/\(sub)", withIntermediateDirectories: true)
            }
            _ = FileManager.default.createFile(
                atPath: "\(conversations)/\(build)/conversation.json", contents: Data("{}".utf8))
            _ = FileManager.default.createFile(
                atPath: "\(conversations)/\(build)/outbox/create.json", contents: Data("{}".utf8))
        }
        _ = try StoreWriter(store: store)
        #expect(try FileManager.default.contentsOfDirectory(atPath: conversations) == [live])
        #expect(try store.conversationIDs().isEmpty)
    }

    @Test("the writer marks it failed with the reason, then removes it")
    func writerChanges() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        try store.startConversation(c1, title: "Dinner", members: [bob])
        let writer = try StoreWriter(store: store)
        try writer.markCreationFailed(in: c1, reason: "this server cannot start conversations")
        let failed = try #require(try store.conversation(c1).queuedCreation())
        #expect(failed.state == .failed && failed.error == "this server cannot start conversations")
        #expect(QueuedCreation.decode(failed.encode(), path: "x").creation == failed)
        try writer.removeCreation(in: c1)
        #expect(try store.conversation(c1).queuedCreation() == nil)
        try writer.removeCreation(in: c1) // gone already: nothing to do
    }

    @Test(
        "damaged creation files are refused with the problem named",
        arguments: [
            (
                #"{"createdAt":"t","members":["../x"],"state":"pending","title":"T"}"#,
                "members[0] must be a valid user ID"
            ),
            (
                #"{"createdAt":"t","error":"e","members":["bob"],"state":"pending","title":"T"}"#,
                "a pending creation has an \"error\""
            ),
            (#"{"createdAt":"t","members":["bob"],"state":"sent","title":"T"}"#, "\"state\" must be"),
            (#"{"createdAt":"t","members":["bob"],"state":"pending","title":"T","x":1}"#, "x"),
            ("not json", "not valid JSON"),
        ])
    func damaged(text: String, words: String) {
        let decoded = QueuedCreation.decode(Array(text.utf8), path: "conversations/c1/outbox/create.json")
        #expect(decoded.creation == nil)
        #expect(decoded.problems.contains { $0.description.contains(words) }, "\(decoded.problems)")
    }
}
