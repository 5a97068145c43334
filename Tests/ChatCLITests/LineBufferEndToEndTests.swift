@testable import ChatCLI
import ChatDomain
import ChatStore
import Foundation
import Glibc
import Testing
import ChatTestSupport

/// `view` and `list` print through ``LineBuffer`` (one write(2) for the whole result): the same
/// bytes as one write per line made, and the same end when the reader has already left.
@Suite(.ownThreads) struct LineBufferEndToEndTests {
    /// bob's messages in c1, each an edge of the row layout: several lines (one blank, one a
    /// trailing newline), a tab and non-ASCII text, controls made visible, CR LF.
    func edgeStore(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("store")
        let created = try ChatdirProcess.run(["init", "--store", path, "--user", "alice"])
        try #require(created.status == 0, "\(created.stderr)")
        let store = try Store.open(at: path)
        let writer = try StoreWriter(store: store)
        let c1 = try ConversationID("c1")
        let bob = try UserID("bob")
        try writer.saveInfo(ConversationInfo(title: "edges", members: [try UserID("alice"), bob]), for: c1)
        let texts = ["first line\nsecond line\n\nafter a blank", "tab\there, café ☕️", "esc \u{1B}[2J and rlo \u{202E}x",
                     "crlf\r\nend", "ends with a newline\n", "plain"]
        try writer.save(texts.enumerated().map { index, text in
            Message(sequence: index + 1, clientMessageID: .random(), senderID: bob, text: text, sentAt: "2026-11-29T10:0\(index):00.000Z")
        }, in: c1)
        return path
    }

    @Test("view into a pipe prints exactly the rows as before: continuation lines indented, controls made visible")
    func sameBytes() throws {
        let directory = try TemporaryDirectory()
        let store = try edgeStore(in: directory)
        let result = try ChatdirProcess.run(["view", "--store", store, "c1"])
        #expect(result.status == 0, "\(result.stderr)")
        let indent = String(repeating: " ", count: 23)
        #expect(result.stdout == """
            2026-11-29 10:00  bob  first line
            \(indent)second line
            \(indent)
            \(indent)after a blank
            2026-11-29 10:01  bob  tab\there, café ☕️
            2026-11-29 10:02  bob  esc ^[[2J and rlo \\u{202e}x
            2026-11-29 10:03  bob  crlf^M
            \(indent)end
            2026-11-29 10:04  bob  ends with a newline
            \(indent)
            2026-11-29 10:05  bob  plain

            """)
    }

    @Test("view --json and list print one line per row or conversation, every line whole")
    func jsonAndList() throws {
        let directory = try TemporaryDirectory()
        let store = try edgeStore(in: directory)
        let json = try ChatdirProcess.run(["view", "--store", store, "c1", "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let texts = try json.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["text"] as? String }
        #expect(texts == ["first line\nsecond line\n\nafter a blank", "tab\there, café ☕️", "esc \u{1B}[2J and rlo \u{202E}x",
                          "crlf\r\nend", "ends with a newline\n", "plain"])
        let list = try ChatdirProcess.run(["list", "--store", store])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout == "c1  edges  (6 unread)  2026-11-29 10:05 bob: plain\n")
    }

    @Test("a long result arrives whole: 2,000 rows of view, more than one 64 KiB piece, none cut or doubled")
    func longResult() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store")
        let seeded = try ChatdirProcess.run(["seed", store, "--conversations", "1", "--messages", "2000", "--members", "3"])
        try #require(seeded.status == 0, "\(seeded.stderr)")
        let result = try ChatdirProcess.run(["view", "--store", store, "c1", "--limit", "2000", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.utf8.count > LineBuffer.flushSize)
        let sequences = try result.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["sequence"] as? Int }
        #expect(sequences == Array(1...2000))
    }

    @Test("a reader that left before chatdir writes ends view and list with SIGPIPE, as one write per line did", arguments: [["view", "c1"], ["list"]])
    func readerGone(_ command: [String]) throws {
        let directory = try TemporaryDirectory()
        let store = try edgeStore(in: directory)
        let arguments = [command[0], "--store", store] + command.dropFirst()
        #expect(try Self.runIntoClosedPipe(arguments) == .signaled(SIGPIPE))
    }

    enum End: Equatable {
        case exited(Int32)
        case signaled(Int32)
    }

    /// Runs chatdir with stdout on a pipe whose read end is already closed (stderr on /dev/null)
    /// and the default action for SIGPIPE, as a shell's `| head` leaves it once head is gone.
    static func runIntoClosedPipe(_ arguments: [String]) throws -> End {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        // Close-on-exec, so no other test's child holds a read end that would keep the pipe open.
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        close(fds[0])
        defer { close(fds[1]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let executable = ChatdirProcess.executable.path
        var argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { (word: String) in strdup(word) }
        argv.append(nil)
        var envp: [UnsafeMutablePointer<CChar>?] = ["TZ=UTC", "NO_COLOR=1"].map { (word: String) in strdup(word) }
        envp.append(nil)
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        #expect(spawned == 0, "posix_spawn: \(spawned)")
        guard spawned == 0 else { return .exited(-1) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return status & 0x7f != 0 ? .signaled(status & 0x7f) : .exited((status >> 8) & 0xff)
    }
}
