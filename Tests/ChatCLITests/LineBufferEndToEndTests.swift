import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

@testable import ChatCLI

/// `view` and `list` print through ``LineBuffer`` (one write(2) for the whole result): the same
/// bytes as one write per line made, and the same end when the reader has already left.
@Suite(.ownThreads) struct LineBufferEndToEndTests {
    /// bob's messages in c1, each an edge of the row layout: several lines (one blank, one a
    /// trailing newline), a tab and non-ASCII text, controls made visible, CR LF.
    func edgeStore(in directory: TemporaryDirectory) throws -> String {
        let path = directory.file("store")
        let writer = try StoreWriter(store: try Store.create(at: path, manifest: Manifest(userID: try UserID("alice"))))
        let bob = try UserID("bob")
        let c1 = try ConversationID("c1")
        try writer.saveInfo(ConversationInfo(title: "edges", members: [try UserID("alice"), bob]), for: c1)
        let texts = [
            "first line\nsecond line\n\nafter a blank", "tab\there, café ☕️", "esc \u{1B}[2J and rlo \u{202E}x",
            "crlf\r\nend", "ends with a newline\n", "plain",
        ]
        try writer.save(
            texts.enumerated().map { index, text in
                Message(
                    sequence: index + 1, clientMessageID: .random(), senderID: bob, text: text,
                    sentAt: "2026-11-29T10:0\(index):00.000Z")
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
        #expect(
            result.stdout == """
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
        let texts = try json.lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["text"] as? String
        }
        #expect(
            texts == [
                "first line\nsecond line\n\nafter a blank", "tab\there, café ☕️", "esc \u{1B}[2J and rlo \u{202E}x",
                "crlf\r\nend", "ends with a newline\n", "plain",
            ])
        let list = try ChatdirProcess.run(["list", "--store", store])
        #expect(list.status == 0, "\(list.stderr)")
        #expect(list.stdout == "c1  edges  (6 unread)  2026-11-29 10:05 bob: plain\n")
    }

    @Test("a long result arrives whole: 2,000 rows of view, more than one 64 KiB piece, none cut or doubled")
    func longResult() throws {
        let directory = try TemporaryDirectory()
        let store = directory.file("store")
        let seeded = try ChatdirProcess.run([
            "seed", store, "--conversations", "1", "--messages", "2000", "--members", "3",
        ])
        try #require(seeded.status == 0, "\(seeded.stderr)")
        let result = try ChatdirProcess.run(["view", "--store", store, "c1", "--limit", "2000", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.utf8.count > LineBuffer.flushSize)
        let sequences = try result.lines.map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["sequence"] as? Int
        }
        #expect(sequences == Array(1...2000))
    }

    @Test(
        "a reader that left before chatdir writes ends view and list with SIGPIPE, as one write per line did",
        arguments: [["view", "c1"], ["list"]])
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
    /// and the default action for SIGPIPE, as a shell's `| head` leaves it once head is gone:
    /// python3's subprocess makes the pipe and restores SIGPIPE's default in the child.
    static func runIntoClosedPipe(_ arguments: [String]) throws -> End {
        let script = """
            import os, subprocess, sys
            r, w = os.pipe()
            os.close(r)
            print(subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=w, stderr=subprocess.DEVNULL, env={"TZ": "UTC", "NO_COLOR": "1"}).returncode)
            """
        let result = try spawnAndWait(
            "python3", ["-c", script, ChatdirProcess.executable.path] + arguments,
            environment: ProcessInfo.processInfo.environment)
        let code = try #require(
            Int32(String(decoding: result.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)),
            "python3: \(String(decoding: result.stderr, as: UTF8.self))")
        return code < 0 ? .signaled(-code) : .exited(code)
    }
}
