import ChatDomain
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

extension RunningChatdir {
    /// SIGINT, then the exit status once stderr has been read to its end, so ``errors`` is whole.
    func stop() -> Int32 {
        let status = interrupt()
        _ = waitUntil(timeout: .seconds(60)) { errorsComplete }
        return status
    }

    /// The JSON object of each stdout line after the "watching" one.
    func events() throws -> [[String: Any]] {
        try output.dropFirst().map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }
}

@Suite(.ownThreads) struct HooksEndToEndTests {
    let c1 = try! ConversationID("c1")
    let alice = try! UserID("alice")
    let bob = try! UserID("bob")

    /// A seeded store (alice's, c1 with bob, five messages) and a writer into it.
    func seeded(_ directory: TemporaryDirectory) throws -> (path: String, writer: StoreWriter) {
        let path = directory.file("store")
        let seeded = try ChatdirProcess.run(["seed", path, "--conversations", "1", "--messages", "5"])
        try #require(seeded.status == 0, "\(seeded.stderr)")
        return (path, try StoreWriter(store: try Store.open(at: path)))
    }

    func message(_ sequence: Int, from sender: UserID, _ text: String) -> Message {
        Message(
            sequence: sequence, clientMessageID: .random(), senderID: sender, text: text,
            sentAt: "2026-11-29T12:00:00.000Z")
    }

    func started(_ arguments: [String]) throws -> RunningChatdir {
        let watch = try RunningChatdir(["watch"] + arguments)
        try #require(
            waitUntil(timeout: .seconds(60)) { watch.output.first?.contains("\"watching\"") == true }, "\(watch.errors)"
        )
        return watch
    }

    @Test(
        "another member's message runs the hook once with the details in the environment and the text on stdin, never in a shell's hands; mine does not"
    )
    func othersMessage() throws {
        let directory = try TemporaryDirectory()
        let (store, writer) = try seeded(directory)
        let out = directory.file("hooks")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let hook =
            #"{ env | grep -E '^CHATDIR_(EVENT|STORE|CONVERSATION|TITLE|SENDER|SEQUENCE)=' | sort; echo --; cat; } > "$OUT/$CHATDIR_SEQUENCE.tmp" && mv "$OUT/$CHATDIR_SEQUENCE.tmp" "$OUT/$CHATDIR_SEQUENCE""#
        var watch = try started(["c1", "--store", store, "--exec", "OUT=\(out); " + hook])
        let text = "dinner at $(touch \(directory.file("expanded"))) `id` 8?"
        try writer.save([message(6, from: alice, "mine, no hook"), message(7, from: bob, text)], in: c1)
        #expect(
            waitUntil(timeout: .seconds(60)) {
                watch.errors.contains { $0.contains("hook for message c1 #7 exited 0") }
            }, "\(watch.errors)")
        #expect(watch.stop() == 0)
        let written = try String(contentsOfFile: out + "/7", encoding: .utf8)
        #expect(
            written == """
                CHATDIR_CONVERSATION=c1
                CHATDIR_EVENT=message
                CHATDIR_SENDER=bob
                CHATDIR_SEQUENCE=7
                CHATDIR_STORE=\(store)
                CHATDIR_TITLE=Bob
                --
                \(text)
                """)
        #expect(!FileManager.default.fileExists(atPath: out + "/6"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("expanded")))
        let events = try watch.events()
        #expect(events.map { $0["mine"] as? Bool } == [true, false])

        // A restart starts from what is there: 7 does not run again, 8 does.
        watch = try started(["c1", "--store", store, "--exec", "OUT=\(out); " + hook])
        try writer.save([message(8, from: bob, "again")], in: c1)
        #expect(
            waitUntil(timeout: .seconds(60)) {
                watch.errors.contains { $0.contains("hook for message c1 #8 exited 0") }
            }, "\(watch.errors)")
        #expect(watch.stop() == 0)
        #expect(!watch.errors.contains { $0.contains("#7") })
    }

    @Test("--on mine runs the hook for my own messages only")
    func mine() throws {
        let directory = try TemporaryDirectory()
        let (store, writer) = try seeded(directory)
        let watch = try started(["--store", store, "--on", "mine", "--exec", "echo \"$CHATDIR_EVENT $CHATDIR_SENDER\""])
        try writer.save([message(6, from: bob, "theirs"), message(7, from: alice, "mine")], in: c1)
        #expect(
            waitUntil(timeout: .seconds(60)) { watch.errors.contains { $0.contains("hook for mine c1 #7 exited 0") } },
            "\(watch.errors)")
        #expect(watch.stop() == 0)
        #expect(watch.errors.contains("chatdir watch: hook for mine c1 #7: mine alice"))
        #expect(!watch.errors.contains { $0.contains("#6") })
    }

    @Test(
        "--on failed,read: a refused message of mine (its text on stdin, the reason in the environment) and another member's read"
    )
    func failedAndRead() throws {
        let directory = try TemporaryDirectory()
        let (store, writer) = try seeded(directory)
        let hook = #"echo "$CHATDIR_EVENT $CHATDIR_SENDER ${CHATDIR_SEQUENCE:-none} ${CHATDIR_ERROR:-} $(cat)""#
        let watch = try started(["c1", "--store", store, "--on", "failed,read", "--exec", hook])
        let queued = try Outbox(try Store.open(at: store).conversation(c1)).enqueue("too rude to send")
        try writer.markFailed(queued.clientMessageID, reason: "refused", in: c1)
        try writer.save([message(6, from: alice, "a sixth")], in: c1)
        _ = try writer.mergePositions(Positions([bob: MemberPosition(deliveredUpTo: 6, readUpTo: 6)]), in: c1)
        // Both hooks, whichever event the observer reports first (stopping earlier ends the other).
        #expect(
            waitUntil(timeout: .seconds(60)) {
                watch.errors.contains("chatdir watch: hook for read c1 #6 exited 0")
                    && watch.errors.contains("chatdir watch: hook for failed c1 \(queued.clientMessageID) exited 0")
            }, "\(watch.errors)")
        #expect(watch.stop() == 0)
        #expect(
            watch.errors.contains(
                "chatdir watch: hook for failed c1 \(queued.clientMessageID): failed alice none refused too rude to send"
            ))
        #expect(watch.errors.contains("chatdir watch: hook for read c1 #6: read bob 6  "))
        #expect(!watch.errors.contains { $0.contains("hook for mine") || $0.contains("hook for message") })
    }

    @Test("a hook that does not exist or fails is logged with its output and status, and later events still run it")
    func failing() throws {
        let directory = try TemporaryDirectory()
        let (store, writer) = try seeded(directory)
        let missing = try started(["c1", "--store", store, "--exec", directory.file("no-such-hook")])
        try writer.save([message(6, from: bob, "one")], in: c1)
        try writer.save([message(7, from: bob, "two")], in: c1)
        #expect(
            waitUntil(timeout: .seconds(60)) {
                missing.errors.contains("chatdir watch: hook for message c1 #7 failed with exit status 127")
            }, "\(missing.errors)")
        #expect(missing.stop() == 0)
        #expect(missing.errors.contains("chatdir watch: hook for message c1 #6 failed with exit status 127"))
        #expect(
            missing.errors.contains {
                $0.hasPrefix("chatdir watch: hook for message c1 #6: ") && $0.contains("no-such-hook")
            })

        let failing = try started(["c1", "--store", store, "--exec", "echo \"boom at $CHATDIR_SEQUENCE\" >&2; exit 7"])
        try writer.save([message(8, from: bob, "three")], in: c1)
        try writer.save([message(9, from: bob, "four")], in: c1)
        #expect(
            waitUntil(timeout: .seconds(60)) {
                failing.errors.contains("chatdir watch: hook for message c1 #9 failed with exit status 7")
            }, "\(failing.errors)")
        #expect(failing.stop() == 0)
        #expect(failing.errors.contains("chatdir watch: hook for message c1 #8: boom at 8"))
        #expect(failing.errors.contains("chatdir watch: hook for message c1 #9: boom at 9"))
    }

    @Test(
        "a hook that hangs and never reads its input holds up neither watching nor stopping: watch prints every event, stops cleanly, and the hook's group is gone"
    )
    func hanging() throws {
        let directory = try TemporaryDirectory()
        let (store, writer) = try seeded(directory)
        let pidFile = directory.file("hook.pid")
        let watch = try started([
            "c1", "--store", store, "--exec",
            "echo $$ > \(pidFile).tmp && mv \(pidFile).tmp \(pidFile); exec sleep 1000",
        ])
        try writer.save([message(6, from: bob, String(repeating: "long text ", count: 400))], in: c1)
        #expect(waitUntil(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: pidFile) })
        try writer.save([message(7, from: bob, "later"), message(8, from: bob, "later still")], in: c1)
        #expect(waitUntil(timeout: .seconds(60)) { watch.output.count >= 4 }, "\(watch.output)")
        #expect(try watch.events().map { $0["sequence"] as? Int } == [6, 7, 8])
        #expect(watch.stop() == 0)
        #expect(watch.errors.contains("chatdir watch: stopping the hook for message c1 #6 (SIGTERM)"))
        #expect(watch.errors.contains("chatdir watch: hook for message c1 #6 killed by signal 15"))
        #expect(watch.errors.contains("chatdir watch: stopping; 2 queued hook runs not started"))
        let pid = try #require(
            Int32(try String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) == -1 && errno == ESRCH, "the hook was killed and reaped")
    }

    @Test("a hook still running after --hook-timeout is stopped and the next event's hook runs")
    func timeout() throws {
        let directory = try TemporaryDirectory()
        let (store, writer) = try seeded(directory)
        let watch = try started([
            "c1", "--store", store, "--hook-timeout", "1", "--exec",
            "[ \"$CHATDIR_SEQUENCE\" = 6 ] && exec sleep 1000; echo quick",
        ])
        try writer.save([message(6, from: bob, "slow"), message(7, from: bob, "quick")], in: c1)
        #expect(
            waitUntil(timeout: .seconds(60)) {
                watch.errors.contains("chatdir watch: hook for message c1 #7 exited 0")
            }, "\(watch.errors)")
        #expect(watch.stop() == 0)
        #expect(
            watch.errors.contains(
                "chatdir watch: hook for message c1 #6 still running after 1 s; stopping it (SIGTERM)"))
        #expect(watch.errors.contains("chatdir watch: hook for message c1 #7: quick"))
    }

    @Test("a full queue drops the newest events and says which")
    func queueFull() throws {
        let directory = try TemporaryDirectory()
        let (store, writer) = try seeded(directory)
        let marker = directory.file("started")
        let watch = try started(["c1", "--store", store, "--exec", "touch \(marker); exec sleep 1000"])
        try writer.save([message(6, from: bob, "first")], in: c1)
        #expect(waitUntil(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: marker) })
        try writer.save((7...131).map { message($0, from: bob, "n\($0)") }, in: c1)
        #expect(
            waitUntil(timeout: .seconds(60)) { watch.errors.contains { $0.contains("dropped message c1 #131") } },
            "\(watch.errors)")
        #expect(watch.stop() == 0)
        let dropped = watch.errors.filter {
            $0.hasPrefix("chatdir watch: hook queue full (100 waiting); dropped message c1 #")
        }
        #expect(dropped.count == 25) // 6 runs, 7…106 wait, 107…131 find the queue full
        #expect(watch.errors.contains("chatdir watch: stopping; 100 queued hook runs not started"))
    }

    @Test(
        "bad hook options are usage errors naming them",
        arguments: [
            (["--on", "message"], "--on and --hook-timeout are for hooks; give the command with --exec CMD"),
            (
                ["--exec", "true", "--on", "message,sent"],
                "--on: unknown event \"sent\"; use some of message,mine,failed,read"
            ),
            (["--exec", " "], "--exec needs a command to run"),
            (
                ["--exec", "true", "--hook-timeout", "0"],
                "--hook-timeout must be a whole number from 1 to 86400, not \"0\""
            ),
        ])
    func badOptions(_ options: [String], _ message: String) throws {
        let directory = try TemporaryDirectory()
        let (store, _) = try seeded(directory)
        let result = try ChatdirProcess.run(["watch", "--store", store] + options)
        #expect(result.status == 64)
        #expect(result.stderr.hasPrefix("chatdir watch: \(message)\n"), "\(result.stderr)")
    }
}

/// A hook that exits at once without reading its input: the write of the text finds the pipe
/// closed (EPIPE), which must not end watch with SIGPIPE. Run many times, the race is lost often.
@Suite(.ownThreads) struct HookBrokenPipeEndToEndTests {
    @Test("hooks that never read their input leave watch running, for every one of 40 events")
    func exitsWithoutReading() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("store")
        let seeded = try ChatdirProcess.run(["seed", path, "--conversations", "1", "--messages", "5"])
        try #require(seeded.status == 0, "\(seeded.stderr)")
        let writer = try StoreWriter(store: try Store.open(at: path))
        let watch = try RunningChatdir(["watch", "c1", "--store", path, "--exec", "exit 0"])
        try #require(waitUntil(timeout: .seconds(60)) { watch.output.first?.contains("\"watching\"") == true })
        let bob = try UserID("bob")
        let text = String(repeating: "x", count: 4000)
        for sequence in 6..<46 {
            try writer.save(
                [
                    Message(
                        sequence: sequence, clientMessageID: .random(), senderID: bob, text: text,
                        sentAt: "2026-11-29T12:00:00.000Z")
                ], in: try ConversationID("c1"))
        }
        #expect(
            waitUntil(timeout: .seconds(60)) {
                watch.errors.contains("chatdir watch: hook for message c1 #45 exited 0")
            }, "\(watch.errors.suffix(5))")
        #expect(watch.stop() == 0)
    }
}
