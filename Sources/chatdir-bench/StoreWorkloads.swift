import ChatDomain
import ChatStore
import Foundation

/// The peer-comparable workloads of BENCHMARKS.md on chatdir's store, through the library,
/// in this process: open, append, ingest, outbox, scan and git. Each is defined exactly as the
/// peer runner defines it (same counts, same summaries).
enum StoreWorkloads {
    static let c1 = SeedCache.c1

    /// alice, bob, carol, dave, erin: the peers' five senders.
    static let members: [UserID] = {
        var generator = FixtureGenerator(userID: alice)
        generator.members = SeedCache.members
        return generator.memberIDs()
    }()

    static let alice: UserID = {
        guard let id = try? UserID("alice") else { preconditionFailure("alice is a valid ID") }
        return id
    }()

    /// Messages `first…first+count-1`, made as `chatdir seed` makes them.
    static func messages(from first: Int, count: Int, random: inout SplitMix64) -> [Message] {
        (first..<(first + count)).map { FixtureGenerator.message($0, members: members, random: &random) }
    }

    /// How many rounds of `runs` opens are timed, 20 ms apart (the peer runner's OPEN_ROUNDS).
    static let openRounds = 5

    /// open: the newest 50 rows with ticks (snapshot, then rows) of c1, warm cache; the lowest
    /// of ``openRounds`` medians of `runs`, µs. A round takes about 10 ms; on this VM a whole
    /// round ran 40 % slower now and then, on either side (two full runs of 2026-12-02: SQLite at 38 or
    /// 70 µs, chatdir at 55 or 75), so one round's median decided a ratio by chance. The peer
    /// runner times SQLite's and Maildir's open the same way.
    static func open(_ store: Store, runs: Int) throws -> Double {
        let conversation = store.conversation(c1)
        let me = store.userID
        var rows = try conversation.snapshot(limit: 50).rows(me: me)
        guard rows.count >= 50 else {
            throw Subprocess.Failure(description: "open: expected 50 rows, got \(rows.count)")
        }
        var best = Double.infinity
        var times: [Double] = []
        times.reserveCapacity(runs)
        for round in 0..<openRounds {
            if round > 0 { usleep(20_000) }
            times.removeAll(keepingCapacity: true)
            for _ in 0..<runs {
                let start = Stats.now()
                rows = try conversation.snapshot(limit: 50).rows(me: me)
                times.append(Double(Stats.now() - start) / 1e3)
            }
            best = min(best, Stats.median(times))
        }
        withExtendedLifetime(rows) {}
        return best
    }

    /// append: one live message made durable (StoreWriter.save of one message) after the N
    /// stored ones, `count` times; p50 and p99 µs. The appended segments are removed afterwards,
    /// so the cached store keeps exactly N messages. An untimed pass of the same appends comes first.
    static func append(_ store: Store, existing: Int, count: Int) throws -> (p50: Double, p99: Double) {
        defer { try? SeedCache.trim(store, to: existing) }
        let (writer, appended) = try untimedAppends(store, existing: existing, count: count)
        var times: [Double] = []
        for message in appended {
            let start = Stats.now()
            let result = try writer.save([message], in: c1)
            times.append(Double(Stats.now() - start) / 1e3)
            guard result.inserted.count == 1 else {
                throw Subprocess.Failure(description: "append: sequence \(message.sequence) was not inserted")
            }
        }
        return Stats.p50p99(times)
    }

    /// What the append rows time: the store trimmed to `existing`, the `count` messages after it,
    /// and an untimed pass of them, removed again, as the peer runner does (there it gives
    /// SQLite's WAL the size a running app's has).
    private static func untimedAppends(_ store: Store, existing: Int, count: Int) throws -> (
        writer: StoreWriter, messages: [Message]
    ) {
        try SeedCache.trim(store, to: existing)
        let writer = try StoreWriter(store: store)
        var random = SplitMix64(seed: 7)
        let appended = messages(from: existing + 1, count: count, random: &random)
        for message in appended { try writer.save([message], in: c1) }
        try SeedCache.trim(store, to: existing)
        return (writer, appended)
    }

    /// `chatdir(round)` and `maildir(round)` for `count` rounds by turns, each round swapping which
    /// goes first (``Stats/turnOrder(_:)``); each side's times, µs.
    private static func byTurns(_ count: Int, chatdir: (Int) throws -> Void, maildir: (Int) throws -> Void) throws -> (
        chatdir: [Double], maildir: [Double]
    ) {
        var times: (chatdir: [Double], maildir: [Double]) = ([], [])
        for round in 0..<count {
            for side in Stats.turnOrder(round) {
                let start = Stats.now()
                if side == 0 { try chatdir(round) } else { try maildir(round) }
                let elapsed = Double(Stats.now() - start) / 1e3
                if side == 0 { times.chatdir.append(elapsed) } else { times.maildir.append(elapsed) }
            }
        }
        return times
    }

    /// ingest: `total` messages into a new store in pages of `page`, one durable commit per page
    /// (StoreWriter.save per page); messages per second. Returns the store for the outbox workload.
    static func ingest(at path: String, total: Int, page: Int) throws -> (perSecond: Double, store: Store) {
        Subprocess.removeTree(path)
        let store = try Store.create(at: path, manifest: Manifest(userID: alice))
        let writer = try StoreWriter(store: store)
        try writer.saveInfo(ConversationInfo(title: "Ingest", members: members), for: c1)
        var random = SplitMix64(seed: 42)
        let timed = try Stats.seconds {
            var next = 1
            while next <= total {
                let batch = messages(from: next, count: min(page, total - next + 1), random: &random)
                try writer.save(batch, in: c1)
                next += batch.count
            }
        }
        return (Double(total) / timed.seconds, store)
    }

    /// outbox: Outbox.enqueue (what `chatdir send` does) `count` times; median µs.
    static func outbox(_ store: Store, count: Int) throws -> Double {
        let outbox = Outbox(store.conversation(c1))
        var times: [Double] = []
        for _ in 0..<count {
            let start = Stats.now()
            try outbox.enqueue("on my way")
            times.append(Double(Stats.now() - start) / 1e3)
        }
        return Stats.median(times)
    }

    /// outbox, by turns with the Maildir peer's sequence in this process (``MaildirSequence``):
    /// `count` sends each, each round swapping which goes first; the two medians, µs.
    static func outboxPaired(_ store: Store, maildir root: String, count: Int) throws -> (
        chatdir: Double, maildir: Double
    ) {
        let outbox = Outbox(store.conversation(c1))
        var maildir = try MaildirSequence(root: root)
        defer { Subprocess.removeTree(root) }
        let times = try byTurns(
            count, chatdir: { _ in try outbox.enqueue("on my way") }, maildir: { _ in try maildir.queue("on my way") })
        return (Stats.median(times.chatdir), Stats.median(times.maildir))
    }

    /// append, by turns with the Maildir peer's save of the same message in this process: the
    /// same untimed pass first (chatdir's removed again), then `count` appends each, each round
    /// swapping which goes first; the two p50s, µs.
    static func appendPaired(_ store: Store, existing: Int, count: Int, maildir root: String) throws -> (
        chatdir: Double, maildir: Double
    ) {
        defer { try? SeedCache.trim(store, to: existing) }
        let (writer, appended) = try untimedAppends(store, existing: existing, count: count)
        var maildir = try MaildirSequence(root: root)
        defer { Subprocess.removeTree(root) }
        let times = try byTurns(
            count,
            chatdir: { round in
                let result = try writer.save([appended[round]], in: c1)
                guard result.inserted.count == 1 else {
                    throw Subprocess.Failure(
                        description: "append: sequence \(appended[round].sequence) was not inserted")
                }
            }, maildir: { round in try maildir.save(appended[round]) })
        return (Stats.p50p99(times.chatdir).p50, Stats.p50p99(times.maildir).p50)
    }

    /// How many times scan and grep run (after one untimed run that warms the page cache):
    /// the same in the peer runner.
    static let scanRuns = 5

    /// scan: messages of c1 whose text contains `word`, through the library
    /// (Conversation.countMessages), warm; median ms and the count.
    static func scan(_ store: Store, word: String = "pizza", runs: Int = scanRuns) throws -> (
        milliseconds: Double, count: Int
    ) {
        let conversation = store.conversation(c1)
        let count = try conversation.countMessages(containing: word)
        var times: [Double] = []
        for _ in 0..<runs {
            times.append(try Stats.seconds { try conversation.countMessages(containing: word) }.seconds * 1e3)
        }
        return (Stats.median(times), count)
    }

    /// search: `chatdir search --store STORE --json word c1` as a user runs it (process wall
    /// time, hits as JSON Lines to /dev/null), warm; median ms and the hits of one untimed run.
    /// With `counting`, `search --count` instead: the same question SQLite's `count(*) … LIKE`
    /// answers, start-up included; the count is then the N it printed.
    static func search(
        chatdir: String, store: Store, word: String = "pizza", counting: Bool = false, runs: Int = scanRuns
    ) throws -> (milliseconds: Double, count: Int) {
        let arguments = [chatdir, "search", "--store", store.root, counting ? "--count" : "--json", word, c1.rawValue]
        let lines = try Subprocess.capture(arguments, allowFailure: true)
        guard lines.status <= 1 else {
            throw Subprocess.Failure(description: "\(arguments.joined(separator: " ")) exited with \(lines.status)")
        }
        var times: [Double] = []
        for _ in 0..<runs {
            let result = try Subprocess.timed(arguments, environment: ["NO_COLOR": "1"])
            guard result.status <= 1 else {
                throw Subprocess.Failure(
                    description: "\(arguments.joined(separator: " ")) exited with \(result.status)")
            }
            times.append(result.wallSeconds * 1e3)
        }
        if counting {
            // One line, `c1:N`.
            let text = String(decoding: lines.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let number = text.split(separator: ":").last.flatMap({ Int($0) }) else {
                throw Subprocess.Failure(
                    description: "\(arguments.joined(separator: " ")) printed \(text.debugDescription), not c1:N")
            }
            return (Stats.median(times), number)
        }
        return (Stats.median(times), lines.output.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) })
    }

    /// `grep -rF word` over c1's messages directory, warm; median ms and the matching lines.
    static func grep(_ store: Store, word: String = "pizza", runs: Int = scanRuns) throws -> (
        milliseconds: Double, count: Int
    ) {
        let arguments = ["grep", "-rF", word, store.conversation(c1).messagesDirectory]
        let output = try Subprocess.capture(arguments, allowFailure: true).output
        var times: [Double] = []
        for _ in 0..<runs {
            times.append(try Stats.seconds { try Subprocess.capture(arguments, allowFailure: true) }.seconds * 1e3)
        }
        return (Stats.median(times), output.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) })
    }

    /// git: a new store committed after each of `pages` pages of `pageSize` messages, then
    /// `git gc --aggressive`; bytes of every file under .git.
    static func git(at path: String, pages: Int, pageSize: Int) throws -> Int {
        Subprocess.removeTree(path)
        let store = try Store.create(at: path, manifest: Manifest(userID: alice))
        let writer = try StoreWriter(store: store)
        try writer.saveInfo(ConversationInfo(title: "Git", members: members), for: c1)
        // gc.auto=0: no background auto-gc after a commit to collide with the final gc.
        let git = ["git", "-C", path, "-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "gc.auto=0"]
        try Subprocess.capture(git + ["init", "-q"])
        var random = SplitMix64(seed: 42)
        for page in 0..<pages {
            try writer.save(messages(from: page * pageSize + 1, count: pageSize, random: &random), in: c1)
            try Subprocess.capture(git + ["add", "-A"])
            try Subprocess.capture(git + ["commit", "-qm", "page \(page)"])
        }
        try Subprocess.capture(git + ["gc", "-q", "--aggressive"])
        return try bytes(under: path + "/.git")
    }

    /// The sum of the sizes of the regular files under `path`.
    static func bytes(under path: String) throws -> Int {
        var total = 0
        guard let walker = FileManager.default.enumerator(atPath: path) else { return 0 }
        while let relative = walker.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: path + "/" + relative)
            if attributes[.type] as? FileAttributeType == .typeRegular { total += (attributes[.size] as? Int) ?? 0 }
        }
        return total
    }
}
