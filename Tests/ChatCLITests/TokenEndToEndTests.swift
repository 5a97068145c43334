import ChatTestSupport
import Foundation
import Testing

/// A token with control characters or spaces inside would put extra lines into the request
/// head (header injection): `chatdir` refuses it before connecting, without echoing it.
@Suite(.ownThreads) struct TokenEndToEndTests {
    static let badTokens = [
        "abc\r\nX-Injected: 1",
        "abc\nX-Injected: 1",
        "abc def",
        "abc\tdef",
    ]

    func newStore(_ directory: TemporaryDirectory, server: String) throws -> String {
        let path = directory.file("alice")
        #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", server, path]).status == 0)
        return path
    }

    @Test(
        "CHATDIR_TOKEN with a control character or a space inside: exit 78, clear words, nothing sent",
        arguments: badTokens)
    func badEnvironmentToken(_ token: String) throws {
        let recorder = try HeadRecorder()
        let directory = try TemporaryDirectory()
        let store = try newStore(directory, server: recorder.url)
        let result = try ChatdirProcess.run(["sync", "--store", store], environment: ["CHATDIR_TOKEN": token])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("CHATDIR_TOKEN contains a control character or a space"), "\(result.stderr)")
        #expect(
            !result.stderr.contains("X-Injected") && !result.stderr.contains("abc") && !result.stdout.contains("abc"))
        #expect(!recorder.receivedHeads.contains { $0.contains("X-Injected") }, "\(recorder.receivedHeads)")
        #expect(recorder.receivedHeads.isEmpty)
    }

    @Test("--token-file with a line break inside the token: exit 78, nothing sent")
    func badTokenFile() throws {
        let recorder = try HeadRecorder()
        let directory = try TemporaryDirectory()
        let store = try newStore(directory, server: recorder.url)
        let file = directory.file("token")
        try Data("abc\r\nX-Injected: 1\n".utf8).write(to: URL(fileURLWithPath: file))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let result = try ChatdirProcess.run(
            ["sync", "--store", store, "--token-file", file], environment: ["CHATDIR_TOKEN": ""])
        #expect(result.status == 78, "\(result.stderr)")
        #expect(
            result.stderr.contains("\(file): the token contains a control character or a space"), "\(result.stderr)")
        #expect(!result.stderr.contains("X-Injected"))
        #expect(recorder.receivedHeads.isEmpty, "\(recorder.receivedHeads)")
    }

    @Test("a good token reaches the server as exactly one Authorization header")
    func goodToken() throws {
        let recorder = try HeadRecorder()
        let directory = try TemporaryDirectory()
        let store = try newStore(directory, server: recorder.url)
        let result = try ChatdirProcess.run(["sync", "--store", store], environment: ["CHATDIR_TOKEN": "alice-token"])
        #expect(result.status == 77, "\(result.stderr)")
        let head = try #require(recorder.receivedHeads.first)
        let lines = head.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.filter { $0.lowercased().hasPrefix("authorization:") } == ["Authorization: Bearer alice-token"])
    }
}
