import ChatDomain
import ChatStore
import ChatTestSupport
import Foundation
import Testing

/// A store kept in git, with real `git` and the built `chatdir` (its merge driver included):
/// two devices merge without conflicts, a real conflict is reported, a clone syncs on.
@Suite(.ownThreads) struct GitEndToEndTests {
    /// A scratch HOME (no user or system git config), a reference server, and helpers to run
    /// git and chatdir in it.
    final class World {
        let directory: TemporaryDirectory
        let server: TestServer
        var environment: [String: String] {
            [
                "HOME": directory.path, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": directory.file("gitconfig"),
                "XDG_CONFIG_HOME": directory.file("config"), "LC_ALL": "C",
            ]
        }

        init() throws {
            directory = try TemporaryDirectory()
            server = try TestServer(sampleData: true)
        }

        @discardableResult
        func git(
            _ arguments: [String], in repository: String, expect status: Int32? = 0,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> ChatdirProcess.Result {
            let result = try ChatdirProcess.run(
                ["-C", repository] + arguments, environment: environment,
                executable: URL(fileURLWithPath: "/usr/bin/git"))
            if let status {
                #expect(
                    result.status == status,
                    "git \(arguments.joined(separator: " ")): \(result.stdout)\(result.stderr)",
                    sourceLocation: sourceLocation)
            }
            return result
        }

        @discardableResult
        func chatdir(
            _ arguments: [String], token: String? = nil, expect status: Int32? = 0,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> ChatdirProcess.Result {
            var environment = self.environment
            if let token { environment["CHATDIR_TOKEN"] = token }
            let result = try ChatdirProcess.run(arguments, environment: environment)
            if let status {
                #expect(
                    result.status == status,
                    "chatdir \(arguments.joined(separator: " ")): \(result.stdout)\(result.stderr)",
                    sourceLocation: sourceLocation)
            }
            return result
        }

        /// A new store of `user` synced with the server, `chatdir init` as a user types it.
        func store(_ name: String, user: String = "alice") throws -> String {
            let path = directory.file(name)
            try chatdir(["init", "--user", user, "--server", server.url, path])
            return path
        }

        /// `git init` (or `clone`), an identity for the repository, and `chatdir git-setup`.
        @discardableResult
        func repository(_ path: String, cloning origin: String? = nil) throws -> ChatdirProcess.Result {
            if let origin {
                try git(["clone", "--quiet", origin, path], in: directory.path)
            } else {
                try git(["init", "--quiet", "-b", "main"], in: path)
            }
            try git(["config", "user.name", "Test"], in: path)
            try git(["config", "user.email", "test@example.invalid"], in: path)
            return try chatdir(["git-setup", "--store", path])
        }

        /// alice's store `name`, a git repository set up for it, synced once and committed.
        func syncedRepository(_ name: String) throws -> String {
            let path = try store(name)
            try repository(path)
            try chatdir(["sync", "--store", path], token: "alice-token")
            try commit(path, "first sync")
            return path
        }

        func commit(_ path: String, _ message: String) throws {
            try git(["add", "-A"], in: path)
            try git(["commit", "--quiet", "-m", message], in: path)
        }

        func send(_ store: String, _ text: String, token: String) throws {
            try chatdir(["send", "--store", store, "dinner", text])
            try chatdir(["sync", "--store", store], token: token)
        }

        func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

        /// git run by a shell whose umask is 022, the usual one, whatever the test runner's is.
        @discardableResult
        func gitUnderUmask022(
            _ arguments: [String], in repository: String, sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> ChatdirProcess.Result {
            let result = try ChatdirProcess.run(
                ["-c", "umask 022 && exec git \"$@\"", "sh", "-C", repository] + arguments,
                environment: environment, executable: URL(fileURLWithPath: "/bin/sh"))
            #expect(
                result.status == 0, "git \(arguments.joined(separator: " ")): \(result.stdout)\(result.stderr)",
                sourceLocation: sourceLocation)
            return result
        }
    }

    static func mode(_ path: String) throws -> Int? {
        try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    }

    static let segment = "conversations/dinner/messages/0000000001-0000000100.json"

    @Test(
        "init writes the git files; git-setup registers the driver, restores modes and changes nothing the second time")
    func setup() throws {
        let world = try World()
        let store = try world.store("store")
        #expect(try world.text(store + "/.gitignore").contains("\n.*\n!.gitignore\n!.gitattributes\n"))
        #expect(try world.text(store + "/.gitattributes").contains("conversations/*/messages/*.json merge=chatdir\n"))
        let outside = try world.chatdir(["git-setup", "--store", store])
        #expect(outside.stdout.hasPrefix("not in a git repository: run `git init` in \(store)"))
        let first = try world.repository(store)
        #expect(first.stdout.contains("merge driver registered in \(store): "), "\(first.stdout)")
        let driver = try world.git(["config", "merge.chatdir.driver"], in: store).stdout
        #expect(driver == ChatdirProcess.executable.resolvingSymlinksInPath().path + " merge-file %O %A %B %P\n")
        let before = try snapshotFiles(store)
        let config = try world.text(store + "/.git/config")
        let second = try world.chatdir(["git-setup", "--store", store])
        #expect(!second.stdout.contains("wrote") && !second.stdout.contains("restored"), "\(second.stdout)")
        #expect(try snapshotFiles(store) == before)
        #expect(try world.text(store + "/.git/config") == config)
        #expect(
            try world.git(
                ["check-attr", "merge", "--", Self.segment, "conversations/dinner/positions.json", "chatdir.json"],
                in: store
            ).stdout == """
                \(Self.segment): merge: chatdir
                conversations/dinner/positions.json: merge: chatdir
                chatdir.json: merge: unspecified

                """)
    }

    @Test("two devices synced at different moments merge without a conflict, equal to a store that synced everything")
    func twoDevices() throws {
        let world = try World()
        let laptop = try world.syncedRepository("laptop")
        // Nothing per device was committed: no lock, marker, hint, temp file or outbox.
        let tracked = try world.git(["ls-files"], in: laptop).stdout
        #expect(
            !tracked.contains(".lock") && !tracked.contains(".caught-up") && !tracked.contains(".newest")
                && !tracked.contains("outbox"), "\(tracked)")
        #expect(try world.git(["status", "--porcelain"], in: laptop).stdout == "")

        let phone = world.directory.file("phone")
        let cloned = try world.repository(phone, cloning: laptop)
        #expect(cloned.stdout.contains("restored modes 0600 (files) and 0700 (directories)"), "\(cloned.stdout)")
        let bob = try world.store("bob", user: "bob")
        try world.chatdir(["sync", "--store", bob], token: "bob-token")

        try world.send(bob, "bob, before the phone's sync", token: "bob-token")
        try world.send(phone, "from the phone", token: "alice-token")
        try world.commit(phone, "phone")
        try world.send(bob, "bob, after the phone's sync", token: "bob-token")
        try world.chatdir(["read", "--store", laptop, "dinner"])
        try world.send(laptop, "from the laptop", token: "alice-token")
        try world.chatdir(["sync", "--store", laptop], token: "alice-token")
        try world.commit(laptop, "laptop")

        let merge = try world.git(["pull", "--no-rebase", "--no-edit", phone, "main"], in: laptop)
        #expect(!merge.stdout.contains("CONFLICT") && !merge.stderr.contains("CONFLICT"))
        #expect(try world.git(["status", "--porcelain"], in: laptop).stdout == "")
        let check = try world.chatdir(["check", "--store", laptop])
        #expect(check.stderr.hasSuffix(": 0 errors, 0 warnings\n"), "\(check.stdout)\(check.stderr)")

        let everything = try world.store("everything")
        try world.chatdir(["sync", "--store", everything], token: "alice-token")
        let diff = try ChatdirProcess.run(
            ["-r", "-x", ".*", "-x", "outbox", laptop, everything], executable: URL(fileURLWithPath: "/usr/bin/diff"))
        #expect(diff.status == 0, "\(diff.stdout)")
        #expect(try world.text(laptop + "/" + Self.segment).contains("from the phone"))
    }

    @Test("the same sequence with two texts is a conflict git reports and check explains, never silently picked")
    func realConflict() throws {
        let world = try World()
        let laptop = try world.syncedRepository("laptop")
        try world.git(["checkout", "--quiet", "-b", "edited"], in: laptop)
        // A hand edit of the second record's text.
        let file = laptop + "/" + Self.segment
        var lines = try world.text(file).components(separatedBy: "\n")
        let record = lines[2]
        let textStart = try #require(record.range(of: "\"text\":\""))
        lines[2] = String(record[..<textStart.upperBound]) + "edited by hand\"}" + (record.hasSuffix(",") ? "," : "")
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: file))
        try world.commit(laptop, "edit by hand")
        try world.git(["checkout", "--quiet", "main"], in: laptop)
        try world.send(laptop, "a new message on main", token: "alice-token")
        try world.commit(laptop, "main")

        let merge = try world.git(["merge", "--no-edit", "edited"], in: laptop, expect: nil)
        #expect(merge.status != 0)
        #expect(merge.stdout.contains("CONFLICT (content): Merge conflict in \(Self.segment)"), "\(merge.stdout)")
        #expect(
            merge.stderr.contains("chatdir merge-file: conflict in \(Self.segment): sequence 2 holds"),
            "\(merge.stderr)")
        let merged = try world.text(file)
        #expect(
            merged.contains("edited by hand") && merged.contains("a new message on main")
                && merged.contains("<<<<<<< ours"))
        let check = try world.chatdir(["check", "--store", laptop], expect: 65)
        // (A conflicted merge runs no post-merge hook, so the file git wrote is 0644: check says that too.)
        #expect(
            check.stdout.contains(
                "\(Self.segment):3: error: unresolved git merge conflict in \(Self.segment); keep one side of every conflict with `chatdir merge-file --keep ours \(Self.segment)`"
            ), "\(check.stdout)")
        #expect(check.stderr.contains(": 1 error, "), "\(check.stderr)")
        let view = try world.chatdir(["view", "--store", laptop, "dinner"], expect: 65)
        #expect(view.stderr.contains("unresolved git merge conflict in"), "\(view.stderr)")

        // Resolved as README says: keep our side, and the store is sound again.
        try world.chatdir(["merge-file", "--keep", "ours", file])
        try world.chatdir(["check", "--quiet", "--store", laptop])
    }

    @Test(
        "conflict advice from merge-file and check, followed literally, keeps the records only one side had",
        arguments: [false, true])
    func adviceKeepsBothSides(fromCheck: Bool) throws {
        let world = try World()
        let laptop = try world.syncedRepository("laptop")
        let file = laptop + "/" + Self.segment
        let synced = SegmentFile.decode(
            Array(try Data(contentsOf: URL(fileURLWithPath: file))), path: Self.segment, range: nil
        ).messages
        let last = try #require(synced.last)
        func message(_ sequence: Int, _ text: String) throws -> Message {
            Message(
                sequence: sequence, clientMessageID: .random(), senderID: try UserID("bob"), text: text,
                sentAt: last.sentAt)
        }
        // Ours: one record only ours has. Theirs: the second record edited by hand, and one
        // record only theirs has. Only sequence 2 is in conflict.
        let onlyOurs = try message(last.sequence + 1, "only on our side")
        let onlyTheirs = try message(last.sequence + 2, "only on their side")
        var edited = synced
        edited[1].text = "edited by hand"
        try world.git(["checkout", "--quiet", "-b", "edited"], in: laptop)
        try Data(SegmentFile.encode(edited + [onlyTheirs])).write(to: URL(fileURLWithPath: file))
        try world.commit(laptop, "edited, and a record only here")
        try world.git(["checkout", "--quiet", "main"], in: laptop)
        try Data(SegmentFile.encode(synced + [onlyOurs])).write(to: URL(fileURLWithPath: file))
        try world.commit(laptop, "a record only here")

        let merge = try world.git(["merge", "--no-edit", "edited"], in: laptop, expect: 1)
        let advice =
            fromCheck
            ? try #require(
                world.chatdir(["check", "--store", laptop], expect: 65).lines.first {
                    $0.contains("unresolved git merge conflict")
                })
            : try #require(
                merge.stderr.split(separator: "\n").first { $0.contains("is left with git's conflict markers") }.map(
                    String.init))
        let commands = advice.split(separator: "`").enumerated().filter { $0.offset % 2 == 1 }.map {
            String($0.element)
        }
        #expect(
            commands.count == 2 && commands[0].hasPrefix("chatdir merge-file --keep ")
                && commands[1].hasPrefix("git add "), "\(advice)")
        // Every command in the advice, as a person pastes it into a shell in the repository.
        var environment = world.environment
        environment["PATH"] = ChatdirProcess.executable.deletingLastPathComponent().path + ":/usr/bin:/bin"
        for command in commands {
            let result = try ChatdirProcess.run(
                ["-c", "cd \"$1\" && " + command, "sh", laptop], environment: environment,
                executable: URL(fileURLWithPath: "/bin/sh"))
            #expect(result.status == 0, "\(command): \(result.stdout)\(result.stderr)")
        }
        try world.gitUnderUmask022(["commit", "--quiet", "--no-edit"], in: laptop)
        let resolved = SegmentFile.decode(
            Array(try Data(contentsOf: URL(fileURLWithPath: file))), path: Self.segment, range: nil)
        #expect(resolved.problems.isEmpty, "\(resolved.problems)")
        #expect(resolved.messages == synced + [onlyOurs, onlyTheirs])
        let check = try world.chatdir(["check", "--store", laptop])
        #expect(check.stdout == "", "\(check.stdout)")
    }

    @Test(
        "one message stored at two sequences on two branches: git stops at one hunk, and keeping ours or theirs in it leaves a store check accepts"
    )
    func idAtTwoSequences() throws {
        let world = try World()
        let laptop = try world.syncedRepository("laptop")
        let file = laptop + "/" + Self.segment
        let synced = SegmentFile.decode(
            Array(try Data(contentsOf: URL(fileURLWithPath: file))), path: Self.segment, range: nil
        ).messages
        let last = try #require(synced.last)
        // One message, as two devices might each have stored it by hand: right after the
        // synced records on main, one sequence further on the branch.
        let message = Message(
            sequence: last.sequence + 1, clientMessageID: .random(), senderID: try UserID("alice"),
            text: "stored at two sequences", sentAt: last.sentAt)
        var later = message
        later.sequence += 1
        try world.git(["checkout", "--quiet", "-b", "elsewhere"], in: laptop)
        try Data(SegmentFile.encode(synced + [later])).write(to: URL(fileURLWithPath: file))
        try world.commit(laptop, "stored one further on")
        try world.git(["checkout", "--quiet", "main"], in: laptop)
        try Data(SegmentFile.encode(synced + [message])).write(to: URL(fileURLWithPath: file))
        try world.commit(laptop, "stored right after")

        let merge = try world.git(["merge", "--no-edit", "elsewhere"], in: laptop, expect: 1)
        #expect(merge.stdout.contains("CONFLICT (content): Merge conflict in \(Self.segment)"), "\(merge.stdout)")
        #expect(
            merge.stderr.contains(
                "chatdir merge-file: conflict in \(Self.segment): client message ID \(message.clientMessageID) is at sequence \(message.sequence) and \(later.sequence) on the two sides"
            ), "\(merge.stderr)")
        let conflicted = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(conflictHunkCount(conflicted) == 1, "\(String(decoding: conflicted, as: UTF8.self))")
        try world.chatdir(["check", "--quiet", "--store", laptop], expect: 65)

        // Resolved by hand as docs/FORMAT.md says: the markers deleted, and in every hunk one side.
        for (side, kept) in [(KeptSide.ours, message), (.theirs, later)] {
            let resolved = try #require(
                resolvingConflicts(conflicted, keeping: Array(repeating: side, count: conflictHunkCount(conflicted))))
            try Data(resolved).write(to: URL(fileURLWithPath: file))
            let check = try world.chatdir(["check", "--fix-modes", "--store", laptop])
            #expect(
                check.stdout == "" && check.stderr.hasSuffix(": 0 errors, 0 warnings\n"),
                "keeping \(side): \(check.stdout)\(check.stderr)")
            #expect(
                SegmentFile.decode(resolved, path: Self.segment, range: nil).messages == synced + [kept],
                "keeping \(side)")
        }
        try world.commit(laptop, "merge")
        try world.chatdir(["check", "--quiet", "--store", laptop])
    }

    @Test("a store restored with git clone syncs on without downloading what it holds")
    func cloneSyncsOn() throws {
        let world = try World()
        let laptop = try world.syncedRepository("laptop")
        let heads = try headSequences(laptop)
        #expect(heads.count == 2 && heads.values.allSatisfy { $0 > 1 }, "\(heads)")

        let bob = try world.store("bob", user: "bob")
        try world.chatdir(["sync", "--store", bob], token: "bob-token")
        try world.send(bob, "while the laptop was away", token: "bob-token")

        let restored = world.directory.file("new-machine")
        try world.repository(restored, cloning: laptop)
        for path in ["chatdir.json", Self.segment] {
            #expect(
                try FileManager.default.attributesOfItem(atPath: restored + "/" + path)[.posixPermissions] as? Int
                    == 0o600)
        }
        #expect(
            try FileManager.default.attributesOfItem(atPath: restored + "/conversations")[.posixPermissions] as? Int
                == 0o700)
        let proxy = try RequestLineProxy(upstreamPort: UInt16(world.server.server.port))
        let sync = try world.chatdir(["sync", "--store", restored, "--server", proxy.url], token: "alice-token")
        #expect(sync.stdout == "synced 2 conversations, 1 new message, 0 sent\n", "\(sync.stdout)")
        let pages = proxy.requestLines.filter { $0.hasPrefix("GET /v1/conversations/") && $0.contains("/messages") }
        #expect(!pages.isEmpty)
        for page in pages {
            let conversation = page.split(separator: "/")[3]
            let after = page.split(separator: "?").last?.split(separator: "&").first { $0.hasPrefix("after=") }.flatMap
            { Int($0.dropFirst(6)) }
            let head = heads[String(conversation)] ?? 0
            #expect(after.map { $0 >= head - 1 } == true, "\(page) asks for what the clone holds (head \(head))")
        }
        #expect(try world.text(restored + "/" + Self.segment).contains("while the laptop was away"))
    }

    @Test(
        "a store inside a larger repository: the driver goes into that repository's config, the attributes apply below the store"
    )
    func nestedStore() throws {
        let world = try World()
        let repository = world.directory.file("home-repo")
        try FileManager.default.createDirectory(atPath: repository, withIntermediateDirectories: true)
        try world.git(["init", "--quiet", "-b", "main"], in: repository)
        let store = repository + "/chats"
        try world.chatdir(["init", "--user", "alice", store])
        let setup = try world.chatdir(["git-setup", "--store", store])
        #expect(setup.stdout.contains("merge driver registered in \(repository): "), "\(setup.stdout)")
        #expect(
            try world.git(
                [
                    "check-attr", "merge", "--", "chats/conversations/c1/positions.json",
                    "conversations/c1/positions.json",
                ], in: repository
            ).stdout == """
                chats/conversations/c1/positions.json: merge: chatdir
                conversations/c1/positions.json: merge: unspecified

                """)
    }

    @Test(
        "merge-file refuses garbage with the file and side named, and a path it does not merge, leaving our file as it was"
    )
    func mergeFileBadInput() throws {
        let world = try World()
        let (base, ours, theirs) = (
            world.directory.file("base"), world.directory.file("ours"), world.directory.file("theirs")
        )
        try Data().write(to: URL(fileURLWithPath: base))
        try Data("[\n{\"clientMessageId\":\"nope\"}\n]\n".utf8).write(to: URL(fileURLWithPath: ours))
        try Data("{\n}\n".utf8).write(to: URL(fileURLWithPath: theirs))
        let damaged = try world.chatdir(["merge-file", base, ours, theirs, Self.segment], expect: 65)
        #expect(
            damaged.stderr.hasPrefix("chatdir merge-file: cannot merge \(Self.segment): ours is damaged: line 2: "),
            "\(damaged.stderr)")
        #expect(try world.text(ours) == "[\n{\"clientMessageId\":\"nope\"}\n]\n")
        let notStore = try world.chatdir(["merge-file", base, ours, theirs, "notes/todo.json"], expect: 64)
        #expect(notStore.stderr.contains("\"notes/todo.json\" is not a file chatdir merges"), "\(notStore.stderr)")
        try world.chatdir(["merge-file", base, ours, theirs], expect: 64)
        let missing = try world.chatdir(
            ["merge-file", base, world.directory.file("absent"), theirs, "conversations/c1/positions.json"], expect: 66)
        #expect(missing.stderr.contains("absent"), "\(missing.stderr)")
    }

    @Test("check --fix-modes gives a clone's files 0600 and directories 0700, then checks")
    func fixModes() throws {
        let world = try World()
        let store = try world.store("store")
        try world.chatdir(["sync", "--store", store], token: "alice-token")
        let file = store + "/" + Self.segment
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: store + "/conversations/dinner")
        let fixed = try world.chatdir(["check", "--fix-modes", "--store", store])
        #expect(
            fixed.stderr.hasPrefix("restored modes 0600 (files) and 0700 (directories) on 2 paths\n"), "\(fixed.stderr)"
        )
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int == 0o600)
        #expect(
            try FileManager.default.attributesOfItem(atPath: store + "/conversations/dinner")[.posixPermissions] as? Int
                == 0o700)
    }

    @Test(
        "a pull under umask 022 leaves segments 0644: check warns with the fix, and git-setup's hooks keep them 0600 on every later pull and checkout"
    )
    func modesAfterPull() throws {
        let world = try World()
        let laptop = try world.syncedRepository("laptop")
        let phone = world.directory.file("phone")
        try world.gitUnderUmask022(["clone", "--quiet", laptop, phone], in: world.directory.path)
        try world.git(["config", "user.name", "Test"], in: phone)
        try world.git(["config", "user.email", "test@example.invalid"], in: phone)
        try world.chatdir(["check", "--fix-modes", "--quiet", "--store", phone])
        #expect(try Self.mode(phone + "/" + Self.segment) == 0o600)

        // A pull without the hooks: git writes the new segment with the umask's 0644.
        try world.send(laptop, "after the clone", token: "alice-token")
        try world.commit(laptop, "one more")
        try world.gitUnderUmask022(["pull", "--quiet", "--no-rebase", "--no-edit", laptop, "main"], in: phone)
        #expect(try Self.mode(phone + "/" + Self.segment) == 0o644)
        let check = try world.chatdir(["check", "--store", phone])
        #expect(
            check.stdout.hasPrefix("\(Self.segment): warning: mode 0644 lets other users of this machine read it"),
            "\(check.stdout)")
        #expect(
            check.stdout.contains("run `chatdir check --fix-modes` on this store, and `chatdir git-setup` once"),
            "\(check.stdout)")
        #expect(check.stderr.hasSuffix(": 0 errors, 1 warning\n"), "\(check.stderr)")

        let setup = try world.chatdir(["git-setup", "--store", phone])
        #expect(
            setup.stdout.contains(
                "installed git hooks post-checkout, post-commit, post-merge, post-rewrite in \(phone)/.git/hooks"),
            "\(setup.stdout)")
        #expect(try Self.mode(phone + "/" + Self.segment) == 0o600)
        let again = try world.chatdir(["git-setup", "--store", phone])
        #expect(!again.stdout.contains("installed"), "\(again.stdout)")

        // With the hooks, the next pull and a checkout leave the store's modes as chatdir makes them.
        try world.send(laptop, "after the hooks", token: "alice-token")
        try world.commit(laptop, "and one more")
        try world.gitUnderUmask022(["pull", "--quiet", "--no-rebase", "--no-edit", laptop, "main"], in: phone)
        #expect(try world.text(phone + "/" + Self.segment).contains("after the hooks"))
        #expect(try Self.mode(phone + "/" + Self.segment) == 0o600)
        let clean = try world.chatdir(["check", "--store", phone])
        #expect(
            clean.stdout == "" && clean.stderr.hasSuffix(": 0 errors, 0 warnings\n"), "\(clean.stdout)\(clean.stderr)")
        try world.gitUnderUmask022(["checkout", "--quiet", "HEAD~2"], in: phone)
        #expect(!(try world.text(phone + "/" + Self.segment).contains("after the clone")))
        #expect(try Self.mode(phone + "/" + Self.segment) == 0o600)
        #expect(try Self.mode(phone + "/conversations/dinner/messages") == 0o700)
    }

    @Test(
        "git-setup leaves a hook of the user's own as it was, says which line to add, exits 73, and runs again the same"
    )
    func foreignHook() throws {
        let world = try World()
        let store = try world.store("store")
        try world.git(["init", "--quiet", "-b", "main"], in: store)
        let hook = store + "/.git/hooks/post-merge"
        try FileManager.default.createDirectory(atPath: store + "/.git/hooks", withIntermediateDirectories: true)
        let own = "#!/bin/sh\necho my own hook\n"
        try Data(own.utf8).write(to: URL(fileURLWithPath: hook))
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: hook)
        for _ in 0..<2 {
            let setup = try world.chatdir(["git-setup", "--store", store], expect: 73)
            #expect(
                setup.stderr
                    == "chatdir git-setup: \(hook) is not chatdir's and is left as it is; add this line to it, or git will leave what it writes readable by others: \(ChatdirProcess.executable.resolvingSymlinksInPath().path) git-setup --modes-only .\n",
                "\(setup.stderr)")
            #expect(try world.text(hook) == own)
            #expect(try Self.mode(hook) == 0o755)
            #expect(try world.text(store + "/.git/hooks/post-checkout").contains(StoreGitHooks.marker))
        }
    }

    /// The highest stored sequence of each conversation of `store`.
    func headSequences(_ store: String) throws -> [String: Int] {
        var heads: [String: Int] = [:]
        for conversation in try FileManager.default.contentsOfDirectory(atPath: store + "/conversations") {
            let messages = store + "/conversations/" + conversation + "/messages"
            for name in try FileManager.default.contentsOfDirectory(atPath: messages) where !name.hasPrefix(".") {
                let text = try String(contentsOfFile: messages + "/" + name, encoding: .utf8)
                for match in text.matches(of: /"sequence":(\d+)/) {
                    heads[conversation] = max(heads[conversation] ?? 0, Int(match.1) ?? 0)
                }
            }
        }
        return heads
    }
}
