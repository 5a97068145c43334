import ChatTestSupport
import Foundation
import Testing

/// README's first paragraph says how to follow a conversation: with commands that do, never
/// with `tail -f`, which keeps reading a file every write has replaced by rename.
@Suite(.ownThreads) struct ReadmeFollowEndToEndTests {
    @Test("README's opening names view --follow and watch to follow a conversation, and both exist")
    func followPromise() throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let opening = try #require(
            readme.components(separatedBy: "\n\n").first { $0.hasPrefix("chatdir is a chat client") })
        #expect(!opening.contains("follow with `tail -f`"), "\(opening)")
        #expect(opening.contains("follow live with `chatdir view --follow` or `chatdir watch`"), "\(opening)")
        let view = try ChatdirProcess.run(["view", "--help"])
        #expect(view.status == 0 && view.stdout.contains("--follow"))
        #expect(try ChatdirProcess.run(["watch", "--help"]).status == 0)
    }

    @Test(
        "a new message replaces its segment by rename: a reader holding the old file sees nothing new, as README says of tail -f"
    )
    func writesReplaceByRename() throws {
        let directory = try TemporaryDirectory()
        let server = try TestServer(sampleData: true)
        let store = directory.file("store")
        let token = ["CHATDIR_TOKEN": "alice-token"]
        #expect(
            try ChatdirProcess.run(["init", "--store", store, "--user", "alice", "--server", server.url]).status == 0)
        #expect(try ChatdirProcess.run(["sync", "--store", store], environment: token).status == 0)
        let segment = store + "/conversations/dinner/messages/0000000001-0000000100.json"
        let held = try FileHandle(forReadingFrom: URL(fileURLWithPath: segment))
        defer { try? held.close() }
        let before = try held.readToEnd() ?? Data()
        #expect(try ChatdirProcess.run(["send", "--store", store, "dinner", "appended?"]).status == 0)
        #expect(try ChatdirProcess.run(["sync", "--store", store], environment: token).status == 0)
        #expect(try String(contentsOfFile: segment, encoding: .utf8).contains("appended?"))
        // What tail -f does: keep reading the descriptor it opened. The file it holds was
        // replaced, not appended to, so there is nothing more to read there.
        #expect(try held.readToEnd() ?? Data() == Data(), "the old file grew: \(before.count) bytes before")
    }
}
