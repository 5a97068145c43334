import ChatDomain
import ChatSystem
import Foundation
import Testing
@testable import ChatStore
import ChatTestSupport

@Suite(.ownThreads) struct RuntimeChannelTests {
    let c1 = try! ConversationID("c1")
    let bob = try! UserID("bob")

    @Test("one store gets one channel directory from every process, under XDG_RUNTIME_DIR or a private /tmp directory")
    func placement() {
        let channel = RuntimeChannel(storeRoot: "/home/alice/chats", runtimeDirectory: "/run/user/1000")
        #expect(channel.root.hasPrefix("/run/user/1000/chatdir/chats-"))
        #expect(channel.root == RuntimeChannel(storeRoot: "/home/alice/chats", runtimeDirectory: "/run/user/1000").root)
        #expect(channel.root != RuntimeChannel(storeRoot: "/home/bob/chats", runtimeDirectory: "/run/user/1000").root)
        let fallback = RuntimeChannel(storeRoot: "/home/alice/chats", runtimeDirectory: nil)
        #expect(fallback.root.hasPrefix("/tmp/chatdir-\(Sys.currentUserID)/chats-"))
        // A relative XDG_RUNTIME_DIR is not trusted (the spec says to ignore it).
        #expect(RuntimeChannel(storeRoot: "/s", runtimeDirectory: "run").root.hasPrefix("/tmp/chatdir-"))
        // A store name with odd characters still makes one plain path component.
        let odd = RuntimeChannel.key("/x/my store\n../é")
        #expect(!odd.contains("/") && !odd.contains(" ") && !odd.contains("\n"))
    }

    @Test("typing and older-page wishes round-trip; the directories are private; nothing is left half-written")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let channel = RuntimeChannel(root: directory.path + "/chatdir/store-1")
        #expect(channel.myTyping(c1) == nil)
        try channel.signalMyTyping(c1, atMilliseconds: 1_764_000_000_123)
        #expect(channel.myTyping(c1) == 1_764_000_000_123)
        #expect(Sys.mode(of: channel.root) == 0o700)
        #expect(Sys.mode(of: channel.directory(of: c1)) == 0o700)

        try channel.noteTyping(c1, user: bob, atMilliseconds: 5)
        #expect(channel.typing(c1).map(\.user) == [bob])
        #expect(channel.typing(c1).map(\.milliseconds) == [5])
        channel.clearTyping(c1, user: bob)
        channel.clearTyping(c1, user: bob)
        #expect(channel.typing(c1).isEmpty)

        #expect(channel.olderWanted(c1) == nil)
        try channel.wantOlder(c1, before: 401)
        #expect(channel.olderWanted(c1) == 401)
        for answer: RuntimeChannel.OlderAnswer in [.loading(before: 401), .stored(before: 401), .beginning(before: 2), .failed(before: 401, reason: "503 from the server\nsecond line")] {
            try channel.answerOlder(c1, answer)
            if case let .failed(before, reason) = answer {
                #expect(channel.olderAnswer(c1) == .failed(before: before, reason: reason.replacingOccurrences(of: "\n", with: "")))
            } else {
                #expect(channel.olderAnswer(c1) == answer)
            }
        }
        #expect(channel.conversations() == [c1])
        let leftovers = try Sys.listDirectory(channel.directory(of: c1)).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test("what another process left there is read as nothing when it does not parse", arguments: [
        "", "abc", "-5", "99999999999999999999999", "before=", "before=-1", "before=x", "loading", "loading before=0",
        "stored before=3 extra", "failed before=3", "teleported before=3",
    ])
    func garbage(_ text: String) throws {
        let directory = try TemporaryDirectory()
        let channel = RuntimeChannel(root: directory.path)
        try FileManager.default.createDirectory(atPath: channel.typingDirectory(of: c1), withIntermediateDirectories: true)
        for name in ["typing-me", "older-wanted", "older-answer", "typing/bob", "typing/not a user!"] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: channel.directory(of: c1) + "/" + name))
        }
        if Int64(text) == nil { #expect(channel.myTyping(c1) == nil) }
        #expect(channel.olderWanted(c1) == nil)
        #expect(channel.olderAnswer(c1) == nil)
        #expect(channel.typing(c1).isEmpty)
    }

    @Test("a file too large to be a value is not read at all")
    func oversized() throws {
        let directory = try TemporaryDirectory()
        let channel = RuntimeChannel(root: directory.path)
        try FileManager.default.createDirectory(atPath: channel.directory(of: c1), withIntermediateDirectories: true)
        try Data(("before=5\n" + String(repeating: "x", count: 10_000)).utf8).write(to: URL(fileURLWithPath: channel.directory(of: c1) + "/older-wanted"))
        #expect(channel.olderWanted(c1) == nil)
    }

    @Test("a symlink where the channel's directory should be is refused, not followed")
    func symlinkRefused() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/channel", withDestinationPath: directory.path + "/elsewhere")
        let channel = RuntimeChannel(root: directory.path + "/channel")
        #expect(throws: SystemError.self) { try channel.signalMyTyping(c1, atMilliseconds: 1) }
        #expect(try Sys.listDirectory(directory.path + "/elsewhere").isEmpty)
    }
}
