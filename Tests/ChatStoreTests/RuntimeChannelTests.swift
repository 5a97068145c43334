import ChatDomain
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

@Suite(.ownThreads) struct RuntimeChannelTests {
    let c1 = try! ConversationID("c1")
    let bob = try! UserID("bob")

    /// Makes `path` and its missing parents below `base` as chatdir makes them: mode 0700.
    func makePrivate(_ path: String, below base: String) throws {
        var current = base
        for component in path.dropFirst(base.count).split(separator: "/") {
            current += "/" + component
            if !FileManager.default.fileExists(atPath: current) {
                try FileManager.default.createDirectory(
                    atPath: current, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
            }
        }
    }

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
        for answer: RuntimeChannel.OlderAnswer in [
            .loading(before: 401), .stored(before: 401), .beginning(before: 2),
            .failed(before: 401, reason: "503 from the server\nsecond line"),
        ] {
            try channel.answerOlder(c1, answer)
            if case .failed(let before, let reason) = answer {
                #expect(
                    channel.olderAnswer(c1)
                        == .failed(before: before, reason: reason.replacingOccurrences(of: "\n", with: "")))
            } else {
                #expect(channel.olderAnswer(c1) == answer)
            }
        }
        #expect(channel.conversations() == [c1])
        let leftovers = try Sys.listDirectory(channel.directory(of: c1)).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    @Test(
        "what another process left there is read as nothing when it does not parse",
        arguments: [
            "", "abc", "-5", "99999999999999999999999", "before=", "before=-1", "before=x", "loading",
            "loading before=0",
            "stored before=3 extra", "failed before=3", "teleported before=3",
        ])
    func garbage(_ text: String) throws {
        let directory = try TemporaryDirectory()
        let channel = RuntimeChannel(root: directory.path + "/run")
        try makePrivate(channel.typingDirectory(of: c1), below: directory.path)
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
        let channel = RuntimeChannel(root: directory.path + "/run")
        try makePrivate(channel.directory(of: c1), below: directory.path)
        try Data(("before=5\n" + String(repeating: "x", count: 10_000)).utf8).write(
            to: URL(fileURLWithPath: channel.directory(of: c1) + "/older-wanted"))
        #expect(channel.olderWanted(c1) == nil)
    }

    @Test("a symlink where the channel's directory should be is refused, not followed")
    func symlinkRefused() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            atPath: directory.path + "/elsewhere", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: directory.path + "/channel", withDestinationPath: directory.path + "/elsewhere")
        let channel = RuntimeChannel(root: directory.path + "/channel")
        #expect(throws: SystemError.self) { try channel.signalMyTyping(c1, atMilliseconds: 1) }
        #expect(try Sys.listDirectory(directory.path + "/elsewhere").isEmpty)
    }

    /// A directory as another local user would leave it in a shared /tmp: theirs, open to all,
    /// with `opens` a symlink to a file of the victim's.
    func squat(_ path: String, owner: Int = 4242, mode: Int = 0o777, pointingAt victim: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: mode, .ownerAccountID: owner], ofItemAtPath: path)
        try FileManager.default.createSymbolicLink(atPath: path + "/opens", withDestinationPath: victim)
    }

    @Test(
        "a channel directory another user made first is refused with its path and owner; nothing is written through its links",
        .enabled(if: getuid() == 0, "giving a directory to another user takes root (CI runs as root)"))
    func anotherUsersDirectory() throws {
        let directory = try TemporaryDirectory()
        let victim = directory.file("victim.txt")
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: victim))
        // The top directory (as /tmp/chatdir-<uid>), and the store-key folder inside a sound one.
        try squat(directory.file("chatdir-top"), pointingAt: victim)
        try makePrivate(directory.file("sound"), below: directory.path)
        try squat(directory.file("sound/store-key"), pointingAt: victim)
        for root in [directory.file("chatdir-top"), directory.file("sound/store-key")] {
            let channel = RuntimeChannel(root: root)
            let refusal = OpenTimes(channel).record(milliseconds: 7)
            #expect(
                refusal?.description
                    == "open \(root): owned by uid 4242, not by this user (uid 0); another user may have made it to read or plant files here: remove it (it is not chatdir's) or set XDG_RUNTIME_DIR"
            )
            #expect(channel.problem() == refusal)
            #expect(throws: SystemError.self) { try channel.signalMyTyping(c1, atMilliseconds: 1) }
            #expect(throws: SystemError.self) { try channel.wantOlder(c1, before: 3) }
            #expect(OpenTimes(channel).recent().isEmpty)
            #expect(channel.conversations().isEmpty)
            #expect(try String(contentsOfFile: victim, encoding: .utf8) == "mine\n")
            #expect(!FileManager.default.fileExists(atPath: root + "/c1"))
        }
    }

    @Test("a channel directory of mine that is open to others is refused (files may have been planted in it)")
    func openToOthers() throws {
        let directory = try TemporaryDirectory()
        let root = directory.file("run")
        try FileManager.default.createDirectory(
            atPath: root, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: root)
        let channel = RuntimeChannel(root: root)
        #expect(
            channel.problem()?.description
                == "open \(root): mode 777 lets others in (a private directory is 0700); files may have been planted in it: remove it"
        )
        #expect(throws: SystemError.self) { try channel.noteTyping(c1, user: bob, atMilliseconds: 1) }
        #expect(channel.myTyping(c1) == nil)
    }

    @Test(
        "open times are kept to the microsecond, so a sub-millisecond open is not 0; whole milliseconds of earlier versions still read"
    )
    func openTimesToTheMicrosecond() throws {
        let directory = try TemporaryDirectory()
        let channel = RuntimeChannel(root: directory.file("run"))
        let times = OpenTimes(channel)
        // Whole milliseconds are written as earlier versions wrote every figure.
        for milliseconds in [18, 0.3124, 4.0, 0.0004] { #expect(times.record(milliseconds: milliseconds) == nil) }
        #expect(try String(contentsOfFile: times.path, encoding: .utf8) == "18\n0.312\n4\n0\n")
        #expect(times.recent() == [18, 0.312, 4, 0])
    }

    @Test(
        "directories made by the channel are 0700 and pass the same check when found again; a planted file link is not followed"
    )
    func madeThenFound() throws {
        let directory = try TemporaryDirectory()
        let channel = RuntimeChannel(root: directory.file("run/chatdir/store-1"))
        #expect(channel.problem() == nil)
        #expect(OpenTimes(channel).record(milliseconds: 12) == nil)
        #expect(OpenTimes(channel).recent() == [12])
        for path in ["run", "run/chatdir", "run/chatdir/store-1"] {
            #expect(Sys.mode(of: directory.file(path)) == 0o700, "\(path)")
        }
        #expect(channel.problem() == nil)
        // A link in place of `opens` (which only this user could have made here) is not written through.
        let victim = directory.file("victim.txt")
        try Data("mine\n".utf8).write(to: URL(fileURLWithPath: victim))
        try FileManager.default.removeItem(atPath: channel.root + "/opens")
        try FileManager.default.createSymbolicLink(atPath: channel.root + "/opens", withDestinationPath: victim)
        #expect(OpenTimes(channel).record(milliseconds: 13)?.isSymbolicLink == true)
        #expect(OpenTimes(channel).recent().isEmpty)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "mine\n")
    }
}
