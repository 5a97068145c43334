import ChatTestSupport
import Foundation
import Testing

/// Every damaged store in Fixtures/: `check` names file:line and the reason, `view` of that
/// conversation fails with the same words, the other conversations keep working, and no
/// command changes a byte.
@Suite(.ownThreads) struct BadInputEndToEndTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var fixture: String
        /// The conversation the damage is in (nil: the whole store).
        var conversation: String?
        /// `path:line` as check prints it.
        var location: String
        var reason: String
        /// A conversation that still works.
        var healthy: String?
        var testDescription: String { fixture }
    }

    static let cases: [Case] = [
        Case(
            fixture: "truncated-segment", conversation: "dinner",
            location: "conversations/dinner/messages/0000000011-0000000020.json:3",
            reason: "the file ends before the closing ']': it was cut short", healthy: "bob"),
        Case(
            fixture: "wrong-type", conversation: "bob",
            location: "conversations/bob/messages/0000000001-0000000010.json:4",
            reason: "\"sequence\" must be a whole number, found a string", healthy: "dinner"),
        Case(
            fixture: "duplicate-sequence", conversation: "bob",
            location: "conversations/bob/messages/0000000001-0000000010.json:5",
            reason: "sequence 3 appears twice (also on line 4); keep one of the two records", healthy: "carol"),
        Case(
            fixture: "duplicate-client-id", conversation: "dinner",
            location: "conversations/dinner/messages/0000000011-0000000020.json:3",
            reason: "(sequence 12) is also stored in conversations/dinner/messages/0000000001-0000000010.json",
            healthy: "bob"),
        Case(
            fixture: "sequence-in-wrong-file", conversation: "bob",
            location: "conversations/bob/messages/0000000001-0000000010.json:9",
            reason:
                "sequence 18 does not belong in this file, which holds 1–10; it belongs in 0000000011-0000000020.json",
            healthy: "dinner"),
        Case(
            fixture: "negative-position", conversation: "dinner", location: "conversations/dinner/positions.json:4",
            reason: "carol: \"readUpTo\" must be at least 0, found -1", healthy: "bob"),
        Case(
            fixture: "bad-outbox-state", conversation: "carol",
            location: "conversations/carol/outbox/01796000000000000000-",
            reason: "\"state\" must be \"pending\" or \"failed\", found \"sent\"", healthy: "dinner"),
        Case(
            fixture: "unknown-format", conversation: nil, location: "chatdir.json",
            reason: "format 2 is not supported by this chatdir (it reads format 1)", healthy: nil),
    ]

    @Test("a damaged store is named precisely and left untouched", arguments: cases)
    func damagedStore(_ damage: Case) throws {
        let directory = try TemporaryDirectory()
        let store = try copyStore(
            packageRoot.appendingPathComponent("Tests/ChatCLITests/Fixtures/\(damage.fixture)"), into: directory)
        let before = try snapshotFiles(store)

        let check = try ChatdirProcess.run(["check", store])
        #expect(check.status == 65)
        let reported = check.lines.filter {
            $0.hasPrefix(damage.location) && $0.contains(": error: ") && $0.contains(damage.reason)
        }
        #expect(reported.count == 1, "check printed:\n\(check.stdout)")
        #expect(
            check.lines.filter { $0.contains(": error: ") }.count == 1, "exactly one error expected:\n\(check.stdout)")

        let view = try ChatdirProcess.run(["view", "--store", store, damage.conversation ?? "bob"])
        #expect(view.status == 65)
        #expect(view.stdout.isEmpty)
        #expect(
            view.stderr.contains(damage.location) && view.stderr.contains(damage.reason), "view said: \(view.stderr)")

        if let healthy = damage.healthy {
            let other = try ChatdirProcess.run(["view", "--store", store, healthy])
            #expect(other.status == 0, "\(other.stderr)")
            #expect(!other.lines.isEmpty)
            // list reads only the newest files of each conversation, so it may not see every damage;
            // what it must do is keep showing the healthy ones.
            let list = try ChatdirProcess.run(["list", "--store", store])
            #expect(list.lines.count == 3)
            #expect(list.lines.contains { $0.hasPrefix(healthy) && !$0.contains("damaged") })
        }
        #expect(try snapshotFiles(store) == before, "a command changed the store")
    }

    @Test("a directory whose name is not a valid ID is reported and never used as a path")
    func invalidConversationName() throws {
        let directory = try TemporaryDirectory()
        let store = try copyStore(
            packageRoot.appendingPathComponent("Tests/ChatCLITests/Fixtures/invalid-conversation-name"), into: directory
        )
        let check = try ChatdirProcess.run(["check", store])
        #expect(check.status == 65)
        #expect(
            check.lines.contains(
                "conversations/bad name!: error: \"bad name!\" is not a valid conversation ID: it may contain only letters, digits, '.', '_' and '-'; rename the directory"
            ))
        // `view "bad name!"` is refused as a usage error before any path is made: ArgumentsTests.
        let list = try ChatdirProcess.run(["list", "--store", store])
        #expect(list.status == 0)
        #expect(list.lines.count == 3)
    }

    @Test("SampleData passes check with no problems, once its modes are chatdir's (a checkout's follow the umask)")
    func sampleIsClean() throws {
        let directory = try TemporaryDirectory()
        let store = try copyStore(packageRoot.appendingPathComponent("SampleData/alice"), into: directory)
        let check = try ChatdirProcess.run(["check", "--fix-modes", store])
        #expect(check.status == 0)
        #expect(check.stdout.isEmpty)
        #expect(check.stderr.contains("3 conversations, 4 segments, 23 messages, 3 outbox files: 0 errors, 0 warnings"))
    }
}
