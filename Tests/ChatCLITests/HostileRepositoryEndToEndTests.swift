import ChatTestSupport
import Foundation
import Testing

/// A store is whatever a commit made it: files replaced by symlinks, folders that point outside
/// the store, files larger than their format allows. The real binary must neither read without
/// bound nor write outside the store; each refusal names the path. Every command runs under a
/// 1 GiB address-space limit, so one that reads `/dev/zero` dies at once instead of filling memory
/// (in a plain build: a sanitizer's runtime reserves terabytes of address space for its shadow
/// memory at start, so there the limit is left off and the exits and words are what is checked).
@Suite(.ownThreads) struct HostileRepositoryEndToEndTests {
    static let memoryLimit = sanitizer == nil ? "ulimit -v 1048576; " : ""

    /// `chatdir arguments…` under `ulimit -v 1 GiB`.
    func chatdir(_ arguments: [String], token: Bool = false) throws -> ChatdirProcess.Result {
        try ChatdirProcess.run(
            ["-c", Self.memoryLimit + "exec \"$@\"", "sh", ChatdirProcess.executable.path] + arguments,
            environment: token ? ["CHATDIR_TOKEN": "alice-token"] : ["CHATDIR_TOKEN": ""],
            executable: URL(fileURLWithPath: "/bin/sh"))
    }

    /// alice's store synced once with a reference server: `dinner` and `alice-bob` with messages.
    func syncedStore(_ directory: TemporaryDirectory, _ server: TestServer) throws -> String {
        let store = directory.file("alice")
        #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", server.url, store]).status == 0)
        let synced = try chatdir(["sync", "--store", store], token: true)
        #expect(synced.status == 0, "\(synced.stderr)")
        return store
    }

    static let linkWords =
        "a symbolic link; a store holds only plain files and directories, and chatdir reads and writes nothing through a link"

    @Test("a segment replaced by a symlink to /dev/zero: check, view, list and sync refuse it by name and end")
    func segmentLinkedToDevZero() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        let store = try syncedStore(directory, server)
        let segment = "conversations/dinner/messages/0000000001-0000000100.json"
        try FileManager.default.removeItem(atPath: store + "/" + segment)
        try FileManager.default.createSymbolicLink(atPath: store + "/" + segment, withDestinationPath: "/dev/zero")
        let check = try chatdir(["check", "--store", store])
        #expect(check.status == 65, "\(check.stderr)")
        #expect(check.stdout.contains("\(segment): error: \(Self.linkWords)"), "\(check.stdout)")
        let view = try chatdir(["view", "--store", store, "dinner"])
        #expect(view.status == 65)
        #expect(view.stderr.contains("chatdir view: \(segment): \(Self.linkWords)"), "\(view.stderr)")
        let list = try chatdir(["list", "--store", store])
        #expect(list.stdout.contains("\(segment): \(Self.linkWords)"), "\(list.stdout)")
        let sync = try chatdir(["sync", "--store", store], token: true)
        #expect(sync.status != 0 && sync.status < 128, "\(sync.status): \(sync.stderr)")
        #expect(sync.stderr.contains("\(segment): \(Self.linkWords)"), "\(sync.stderr)")
        // The link is left as it is: chatdir writes nothing through it and does not replace it.
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: store + "/" + segment) == "/dev/zero")
    }

    @Test("a segment larger than its format allows is damaged, named with its size")
    func oversizedSegment() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("alice")
        #expect(try ChatdirProcess.run(["init", "--user", "alice", "--segment-size", "1", store]).status == 0)
        let messages = store + "/conversations/c1/messages"
        try FileManager.default.createDirectory(atPath: messages, withIntermediateDirectories: true)
        // One record can take at most 6 × 65,536 + 1,024 bytes; a segment of one, 4 bytes more.
        let limit = 6 * 65_536 + 1_024 + 4
        try Data(repeating: UInt8(ascii: " "), count: limit + 1).write(
            to: URL(fileURLWithPath: messages + "/0000000001-0000000001.json"))
        let words =
            "conversations/c1/messages/0000000001-0000000001.json: \(limit + 1) bytes, more than a segment of 1 message can be (at most \(limit) bytes): damaged"
        let check = try chatdir(["check", "--store", store])
        #expect(check.status == 65)
        #expect(
            check.stdout.contains(words.replacingOccurrences(of: ".json: ", with: ".json: error: ")), "\(check.stdout)")
        let view = try chatdir(["view", "--store", store, "c1"])
        #expect(view.status == 65)
        #expect(view.stderr.contains(words), "\(view.stderr)")
    }

    @Test(
        "a conversation folder that is a symlink to a folder outside the store: every command refuses it by name, nothing is written there",
        arguments: ["conversation", "messages", "outbox"])
    func conversationLinkedOutside(_ which: String) throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        let store = try syncedStore(directory, server)
        let outside = directory.file("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        let relative = which == "conversation" ? "conversations/alice-bob" : "conversations/alice-bob/" + which
        try? FileManager.default.removeItem(atPath: store + "/" + relative)
        try FileManager.default.createSymbolicLink(atPath: store + "/" + relative, withDestinationPath: outside)
        let words = "\(relative): a symbolic link, not a directory; a store holds only plain files and directories"
        let commands: [(arguments: [String], token: Bool)] =
            [
                (["sync", "--store", store], true),
                (["send", "--store", store, "alice-bob", "hello"], false),
                (["read", "--store", store, "alice-bob"], false),
                (["history", "--store", store, "alice-bob"], true),
                (["view", "--store", store, "alice-bob"], false),
            ] + (which == "conversation" ? [] : [(["retry", "--store", store, "--all"], false)])
        // (A conversation folder that is not a directory is skipped by the commands that go over
        // every conversation, as a folder whose name is not an ID is; `check` reports both.)
        for (arguments, token) in commands {
            let result = try chatdir(arguments, token: token)
            #expect(
                result.status != 0 && result.status < 128, "\(arguments[0]) exited \(result.status): \(result.stderr)")
            #expect(result.stderr.contains(words), "\(arguments[0]): \(result.stderr)")
        }
        if which == "conversation" {
            let create = try chatdir(["create", "--store", store, "alice-bob", "--title", "again", "--member", "bob"])
            #expect(create.status == 65, "\(create.stderr)")
            #expect(create.stderr.contains(words), "\(create.stderr)")
        }
        let check = try chatdir(["check", "--store", store])
        #expect(check.status == 65)
        #expect(check.stdout.contains("\(relative): error: a symbolic link, not a directory"), "\(check.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
    }
}
