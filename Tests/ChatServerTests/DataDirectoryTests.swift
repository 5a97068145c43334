import ChatTestSupport
import Foundation
import Testing

@testable import ChatServer

/// Loading the data directory and the users file: what is refused, and how the refusal reads.
@Suite(.ownThreads) struct DataDirectoryTests {
    static func load(users: String? = nil, files: [String: String] = [:]) throws -> Result<DataDirectory, ServerError> {
        let directory = try TemporaryDirectory()
        try TestData.create(at: directory.path)
        if let users { try users.write(toFile: directory.path + "/users.json", atomically: true, encoding: .utf8) }
        for (path, text) in files {
            let full = directory.path + "/" + path
            try FileManager.default.createDirectory(
                atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }
        do {
            let data = try DataDirectory(path: directory.path)
            data.releaseLock()
            return .success(data)
        } catch {
            return .failure(error)
        }
    }

    @Test(
        "a users file that is wrong is refused with the entry and the fix named",
        arguments: [
            ("not json", "not valid JSON"),
            (#"{"alice-token":"alice"}"#, "expected a JSON array"),
            (#"[{"token":"t","userId":"../root"}]"#, "entry 1: invalid user ID"),
            (#"[{"token":"","userId":"alice"}]"#, "needs \"token\""),
            (#"[{"token":"a b","userId":"alice"}]"#, "visible ASCII"),
            (#"[{"token":"t","userId":"alice"},{"token":"t","userId":"bob"}]"#, "entry 2 repeats a token"),
            (#"[{"token":"t","userId":"alice","admin":true}]"#, "unknown field \"admin\""),
        ])
    func badUsersFile(text: String, expected: String) throws {
        guard case .failure(let error) = try Self.load(users: text) else {
            Issue.record("the users file was accepted")
            return
        }
        #expect(error.description.contains(expected), "\(error)")
        #expect(error.exitCode == 66)
    }

    @Test(
        "a conversation directory that is wrong is refused, naming it",
        arguments: [
            (
                "conversations/bad name/conversation.json", #"{"members":["alice"],"title":"x"}"#,
                "invalid conversation ID"
            ),
            ("conversations/empty/messages/0000000001-0000000100.json", "[\n]\n", "has no conversation.json"),
            (
                "conversations/ab/messages/0000000001-0000000100.json",
                "[\n{\"clientMessageId\":\"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3\",\"senderId\":\"alice\",\"sentAt\":\"t\",\"sequence\":2,\"text\":\"x\"}\n]\n",
                "sequence 1 is missing"
            ),
        ])
    func badConversation(path: String, text: String, expected: String) throws {
        guard case .failure(let error) = try Self.load(files: [path: text]) else {
            Issue.record("the data directory was accepted")
            return
        }
        #expect(error.description.contains(expected), "\(error)")
    }

    @Test("SampleData/server loads: five users, a one-to-one and a group")
    func sampleData() throws {
        // A copy: opening takes the lock, which creates .lock, and the committed sample stays as it is.
        let directory = try TemporaryDirectory()
        try FileManager.default.copyItem(
            atPath: packageRoot.appendingPathComponent("SampleData/server").path, toPath: directory.path + "/server")
        let data = try DataDirectory(path: directory.path + "/server")
        defer { data.releaseLock() }
        #expect(data.users.userIDs.map(\.rawValue) == ["alice", "bob", "carol", "dave", "erin"])
        #expect(data.conversations.keys.map(\.rawValue).sorted() == ["alice-bob", "dinner"])
        #expect(data.conversations.values.map(\.members.count).sorted() == [2, 5])
    }
}
