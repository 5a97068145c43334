import ChatServer
import ChatStore
import Foundation

/// One run of the benchmark: chatdir's workloads (store, command line, sync), then the peers
/// with the same sizes, gathered into a ``Report``. Progress goes to stderr.
struct Bench {
    var options: BenchOptions
    var log: (String) -> Void = { FileHandle.standardError.write(Data(("chatdir-bench: " + $0 + "\n").utf8)) }

    private var work: String { options.cache + "/work" }

    func run() async throws -> Report {
        var report = Report(options: options)
        report.machine = Machine.facts(cache: options.cache)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        // What the workloads remove waits in the trash until the run is over (see Subprocess.removeTree).
        let trash = work + "/trash"
        try? FileManager.default.removeItem(atPath: trash)
        try FileManager.default.createDirectory(atPath: trash, withIntermediateDirectories: true)
        Subprocess.trash.withLock { $0 = trash }
        defer {
            Subprocess.trash.withLock { $0 = nil }
            try? FileManager.default.removeItem(atPath: trash)
        }
        var chatdir: [String: Double] = [:]
        // The Maildir sequence measured by turns with chatdir's durable writes, in this process.
        var pairedMaildir: [String: Double] = [:]
        if options.runs("store") || options.runs("cli") || options.runs("matrix") {
            guard FileManager.default.isExecutableFile(atPath: options.chatdir) else {
                throw Subprocess.Failure(
                    description:
                        "\(options.chatdir) is missing: build it first with CHATDIR_RELEASE=1 swift build -c release --product chatdir --disable-local-rpath (or pass --chatdir PATH)"
                )
            }
        }
        if options.runs("cli"), Self.hasLocalRunPath(options.chatdir) {
            report.notes.append(
                "\(options.chatdir) was built without --disable-local-rpath: every start first looks for libc and libm beside the binary (24 failed openat), which make install's binary does not; the process rows are slower for it."
            )
        }
        if options.runs("store") { try storeWorkloads(into: &chatdir, pairedMaildir: &pairedMaildir) }
        if options.runs("cli") { try cliWorkloads(into: &chatdir, report: &report) }
        if options.runs("sync") { try await syncWorkloads(into: &chatdir) }
        if options.runs("sync") || options.runs("conversations") { try await conversationsWorkload(into: &chatdir) }
        if options.runs("server") { try serverWorkloads(into: &chatdir) }
        if options.runs("burst") { try await burstWorkloads(into: &chatdir) }
        if options.runs("hostile") { hostileWorkloads(into: &chatdir) }
        if options.runs("matrix") { try matrixWorkloads(into: &chatdir, report: &report) }
        report.figures["chatdir"] = chatdir
        if options.runs("peers") {
            let runner = PeerRunner(
                python: options.python, script: try PeerRunner.locate(options.peersScript),
                workdir: options.cache + "/peers")
            log("peers: \(runner.script) (SQLite and Maildir, the same sizes)")
            let peers = try runner.run(
                sizes: options.sizes, quick: options.quick, maildirMax: options.maildirMaxSize,
                extraArguments: ["--trash", trash])
            for (peer, figures) in peers.figures { report.figures[peer] = figures }
            if let version = peers.meta["sqlite_version"] as? String { report.machine["sqlite"] = version }
            if let version = peers.meta["python"] as? String { report.machine["python"] = version }
            if options.sizes.contains(where: { $0 > options.maildirMaxSize }) {
                report.notes.append(
                    "Maildir is not filled past \(options.maildirMaxSize) messages (--maildir-max): a million files take minutes to list and make."
                )
            }
        }
        for (key, value) in pairedMaildir { report.figures["maildir", default: [:]][key] = value }
        if options.runs("cli") { try sqliteShellWorkloads(into: &report) }
        report.notes.append(
            "Observer latency (rename → redraw) has its own tool: swift run -c release observer-latency (BENCHMARKS.md)."
        )
        report.machine["load at end"] = Machine.load()
        return report
    }

    private func storeWorkloads(into figures: inout [String: Double], pairedMaildir: inout [String: Double]) throws {
        var cache = SeedCache(root: options.cache, chatdir: options.chatdir)
        cache.log = log
        // Ingest and outbox first: they make new files, and on this VM's ext4 (no journal) a new
        // inode skips every one freed in the last 30–60 s, so after the appends below (each
        // replaces a segment, freeing the old file's inode) every send was 2× slower in the same
        // run (BENCHMARKS.md, "Durable writes at the syscall floor"). The Maildir peer frees no
        // file before its outbox.
        let ingest = try StoreWorkloads.ingest(
            at: work + "/ingest", total: options.ingestTotal, page: options.ingestPage)
        figures["ingest_msgs_per_s"] = ingest.perSecond.rounded()
        let outbox = try StoreWorkloads.outbox(ingest.store, count: options.outboxCount)
        figures["outbox_us_median"] = Stats.round1(outbox)
        let outboxPaired = try StoreWorkloads.outboxPaired(
            ingest.store, maildir: work + "/maildir-outbox", count: options.outboxCount)
        (figures["outbox_paired_us_median"], pairedMaildir["outbox_paired_us_median"]) = (
            Stats.round1(outboxPaired.chatdir), Stats.round1(outboxPaired.maildir)
        )
        Subprocess.removeTree(work + "/ingest")
        log(
            "ingest \(Report.number(ingest.perSecond)) msg/s, outbox \(Report.number(outbox)) µs; by turns with the Maildir sequence \(Report.number(outboxPaired.chatdir)) against \(Report.number(outboxPaired.maildir)) µs"
        )
        for size in options.sizes.sorted() {
            let store = try cache.store(messages: size)
            let open = try StoreWorkloads.open(store, runs: options.openRuns)
            figures["open_us_\(size)"] = Stats.round1(open)
            let scan = try StoreWorkloads.scan(store)
            figures["scan_ms_\(size)"] = Stats.round1(scan.milliseconds)
            figures["scan_count_\(size)"] = Double(scan.count)
            let grep = try StoreWorkloads.grep(store)
            figures["grep_ms_\(size)"] = Stats.round1(grep.milliseconds)
            figures["grep_lines_\(size)"] = Double(grep.count)
            let search = try StoreWorkloads.search(chatdir: options.chatdir, store: store)
            figures["search_ms_\(size)"] = Stats.round1(search.milliseconds)
            figures["search_hits_\(size)"] = Double(search.count)
            let searchCount = try StoreWorkloads.search(chatdir: options.chatdir, store: store, counting: true)
            figures["search_count_ms_\(size)"] = Stats.round1(searchCount.milliseconds)
            let append = try StoreWorkloads.append(store, existing: size, count: options.appendCount)
            figures["append_p50_us_\(size)"] = Stats.round1(append.p50)
            figures["append_p99_us_\(size)"] = Stats.round1(append.p99)
            let appendPaired = try StoreWorkloads.appendPaired(
                store, existing: size, count: options.appendCount, maildir: work + "/maildir-append")
            (figures["append_paired_p50_us_\(size)"], pairedMaildir["append_paired_p50_us_\(size)"]) = (
                Stats.round1(appendPaired.chatdir), Stats.round1(appendPaired.maildir)
            )
            log(
                "N=\(size): append p50 by turns with the Maildir sequence \(Report.number(appendPaired.chatdir)) against \(Report.number(appendPaired.maildir)) µs"
            )
            log(
                "N=\(size): open \(Report.number(open)) µs, scan \(Report.number(scan.milliseconds)) ms (\(scan.count) matches), grep \(Report.number(grep.milliseconds)) ms, search \(Report.number(search.milliseconds)) ms (\(search.count) hits), append p50 \(Report.number(append.p50)) µs p99 \(Report.number(append.p99)) µs"
            )
        }
        let git = try StoreWorkloads.git(at: work + "/git", pages: options.gitPages, pageSize: options.gitPageSize)
        figures["git_bytes_after_\(options.gitPages)_pages"] = Double(git)
        Subprocess.removeTree(work + "/git")
        log("git \(git) bytes after \(options.gitPages) pages")
    }

    private func cliWorkloads(into figures: inout [String: Double], report: inout Report) throws {
        var cache = SeedCache(root: options.cache, chatdir: options.chatdir)
        cache.log = log
        let store = try cache.store(messages: options.largestSize)
        let view = try CLIWorkloads.view(
            chatdir: options.chatdir, store: store.root, runs: options.viewRuns, python: options.python)
        figures["view_wall_ms"] = Stats.round1(view.wallMilliseconds)
        figures["view_peak_rss_mib"] = Stats.round1(view.peakRSSMegabytes)
        let send = try CLIWorkloads.send(
            chatdir: options.chatdir, scratch: work + "/send", runs: options.sendRuns, python: options.python)
        figures["send_wall_ms"] = Stats.round1(send.wallMilliseconds)
        figures["send_peak_rss_mib"] = Stats.round1(send.peakRSSMegabytes)
        Subprocess.removeTree(work + "/send")
        report.machine["peak RSS measured by"] = view.rssTool
        log(
            "view N=\(options.largestSize): \(Report.number(view.wallMilliseconds)) ms, \(Report.number(view.peakRSSMegabytes)) MiB; send \(Report.number(send.wallMilliseconds)) ms"
        )
        // The rows beside the sqlite3 shell are measured by turns with it, after the
        // peers have made its databases (sqliteShellWorkloads).
    }

    /// Whether `binary` carries SwiftPM's `$ORIGIN` run path (a build without
    /// `--disable-local-rpath`): the string is in its dynamic section only then.
    static func hasLocalRunPath(_ binary: String) -> Bool {
        guard let bytes = FileManager.default.contents(atPath: binary) else { return false }
        return bytes.range(of: Data("$ORIGIN".utf8)) != nil
    }

    /// The `sqlite3` command line on the SQLite peer's databases (made by the peer runner, so
    /// this runs after it; with `--only cli` the cached ones are used when there are some).
    private func sqliteShellWorkloads(into report: inout Report) throws {
        guard let sqlite3 = SQLiteShell.locate() else {
            report.notes.append(
                "sqlite3 is not on PATH (Debian: apt-get install sqlite3): the rows against the sqlite3 shell are left out."
            )
            return
        }
        // Each sqlite3 run takes turns with the chatdir command it stands beside, and chatdir's
        // figure of these rows is the one from the same turns (the cli group's is replaced).
        var figures: [String: Double] = [:]
        var chatdir: [String: Double] = [:]
        var missing: [Int] = []
        var cache = SeedCache(root: options.cache, chatdir: options.chatdir)
        cache.log = log
        // Both programs as read back from disk (PageCache): the warm-up run of each pair reads them.
        let evicted = [options.chatdir] + PageCache.programFiles(sqlite3)
        let unopened = PageCache.evict(evicted)
        report.notes.append(
            "The process rows start both programs as read back from disk: \(evicted.count - unopened.count) files (chatdir, sqlite3 and the libraries ldd lists for it) were dropped from the page cache before them (BENCHMARKS.md, \"Process start\")."
        )
        for size in options.sizes.sorted() {
            let database = options.cache + "/peers/sqlite-\(size)/chat.db"
            guard FileManager.default.fileExists(atPath: options.cache + "/peers/sqlite-\(size).complete") else {
                missing.append(size)
                continue
            }
            let store = try cache.store(messages: size).root
            let view = try SQLiteShell.paired(
                [options.chatdir, "view", "--store", store, "c1", "--limit", "50"], sqlite3, database: database,
                SQLiteShell.viewQuery, runs: options.viewRuns)
            (chatdir["cli_view_ms_\(size)"], figures["cli_view_ms_\(size)"]) = (
                Stats.round2(view.chatdir), Stats.round2(view.sqlite3)
            )
            let list = try SQLiteShell.paired(
                [options.chatdir, "list", "--store", store], sqlite3, database: database, SQLiteShell.listQuery,
                runs: options.viewRuns)
            (chatdir["cli_list_ms_\(size)"], figures["cli_list_ms_\(size)"]) = (
                Stats.round2(list.chatdir), Stats.round2(list.sqlite3)
            )
            if figures["cli_send_ms"] == nil {
                let send = try SQLiteShell.send(
                    chatdir: options.chatdir, sqlite3, database: database, scratch: work + "/sqlite3-send",
                    runs: options.sendRuns)
                (chatdir["cli_send_ms"], figures["cli_send_ms"]) = (
                    Stats.round2(send.chatdir), Stats.round2(send.sqlite3)
                )
            }
        }
        for (key, value) in chatdir { report.figures["chatdir", default: [:]][key] = value }
        if !missing.isEmpty {
            report.notes.append(
                "No SQLite peer database for N=\(missing.map(Report.count).joined(separator: ", ")) in the cache (the peers group makes them): those sqlite3 shell rows are left out."
            )
        }
        for (key, value) in figures { report.figures["sqlite", default: [:]][key] = value }
        log(
            "sqlite3 shell (\(sqlite3)): "
                + figures.sorted { $0.key < $1.key }.map { "\($0.key) \(Report.number($0.value))" }.joined(
                    separator: ", "))
    }

    /// The Matrix table: bench/matrix_runner.py against a Synapse it starts (and seeds once
    /// into the cache); skipped with the reason when Synapse is not installed.
    private func matrixWorkloads(into figures: inout [String: Double], report: inout Report) throws {
        let runner = MatrixRunner(
            python: options.python,
            script: try PeerRunner.locate(options.matrixScript, name: "matrix_runner.py", option: "--matrix-runner"),
            workdir: options.cache + "/matrix", virtualEnvironment: MatrixRunner.virtualEnvironment(),
            chatdir: options.chatdir, nioPython: MatrixRunner.nioPython().python)
        if let reason = runner.skipReason() {
            log(reason)
            report.notes.append(reason)
            return
        }
        if let reason = MatrixRunner.nioPython().skipped {
            log(reason)
            report.notes.append(reason)
        }
        log(
            "matrix: \(runner.script) (Synapse from \(runner.virtualEnvironment); seeding the first time takes minutes)"
        )
        let (sides, meta) = try runner.run(runs: options.matrixRuns, live: options.matrixLive)
        figures.merge(sides["chatdir"] ?? [:]) { $1 }
        report.figures["matrix-pager"] = sides["matrix-pager"] ?? [:]
        report.figures["matrix-nio"] = sides["matrix-nio"] ?? [:]
        if let version = meta["synapse"] as? String { report.machine["synapse"] = version }
        if let data = try? JSONSerialization.data(withJSONObject: meta, options: [.sortedKeys]) {
            report.notes.append("Matrix run: " + String(decoding: data, as: UTF8.self))
        }
    }

    /// 8 MiB answers built to be slow to decode: refused or parsed in well under a second.
    private func hostileWorkloads(into figures: inout [String: Double]) {
        let hostile = HostileJSON.measure()
        figures["hostile_keys_refused_ms"] = Stats.round1(hostile.keysRefusedMilliseconds)
        figures["hostile_keys_parsed_ms"] = Stats.round1(hostile.keysParsedMilliseconds)
        figures["hostile_keys"] = Double(hostile.keys)
        figures["hostile_array_refused_ms"] = Stats.round1(hostile.arrayRefusedMilliseconds)
        log(
            "hostile JSON: \(hostile.keys) keys refused in \(Report.number(hostile.keysRefusedMilliseconds)) ms, parsed in \(Report.number(hostile.keysParsedMilliseconds)) ms; long array refused in \(Report.number(hostile.arrayRefusedMilliseconds)) ms"
        )
    }

    private func syncWorkloads(into figures: inout [String: Double]) async throws {
        log("sync: writing a server data directory with \(options.catchUpMessages) messages")
        let fixture = try ServerFixture(directory: work + "/server", history: options.catchUpMessages)
        defer {
            fixture.stop()
            Subprocess.removeTree(work + "/server")
        }
        let catchUp = try await SyncWorkloads.catchUp(
            fixture, clientPath: work + "/client-bob", expected: options.catchUpMessages)
        figures["catchup_msgs_per_s"] = catchUp.perSecond.rounded()
        let drain = try await SyncWorkloads.drain(
            fixture, clientPath: work + "/client-carol", count: options.drainCount)
        figures["drain_msgs_per_s"] = drain.perSecond.rounded()
        figures["drain_seconds"] = (drain.seconds * 1000).rounded() / 1000
        log("catch-up \(Report.number(catchUp.perSecond)) msg/s, drain \(Report.number(drain.perSecond)) msg/s")
        let live = try await LiveLatency.measure(fixture, clientPath: work + "/client-erin", count: options.liveCount)
        figures["live_p50_ms"] = (live.p50 * 100).rounded() / 100
        figures["live_p99_ms"] = (live.p99 * 100).rounded() / 100
        figures["live_from_send_p50_ms"] = (live.fromSendP50 * 100).rounded() / 100
        figures["live_from_send_p99_ms"] = (live.fromSendP99 * 100).rounded() / 100
        log("live \(live.count): p50 \(Report.number(live.p50)) ms, p99 \(Report.number(live.p99)) ms (from the 201)")
        for client in ["bob", "carol", "erin"] { Subprocess.removeTree(work + "/client-" + client) }
        try await tlsWorkloads(into: &figures)
    }

    /// The same server over TLS: connect + first request, catch-up over https, live over wss.
    private func tlsWorkloads(into figures: inout [String: Double]) async throws {
        let fixture = try ServerFixture(directory: work + "/server-tls", history: options.catchUpMessages, tls: true)
        defer {
            fixture.stop()
            Subprocess.removeTree(work + "/server-tls")
            Subprocess.removeTree(work + "/server-tls-tls")
        }
        let plain = try ServerFixture(directory: work + "/server-plain", history: 1)
        let plainConnect = try await SyncWorkloads.connect(plain, count: 50)
        plain.stop()
        Subprocess.removeTree(work + "/server-plain")
        let connect = try await SyncWorkloads.connect(fixture, count: 50)
        figures["tls_connect_p50_ms"] = (connect.p50 * 100).rounded() / 100
        figures["tcp_connect_p50_ms"] = (plainConnect.p50 * 100).rounded() / 100
        let catchUp = try await SyncWorkloads.catchUp(
            fixture, clientPath: work + "/client-bob-tls", expected: options.catchUpMessages)
        figures["catchup_tls_msgs_per_s"] = catchUp.perSecond.rounded()
        let live = try await LiveLatency.measure(
            fixture, clientPath: work + "/client-erin-tls", count: options.liveCount)
        figures["live_wss_p50_ms"] = (live.p50 * 100).rounded() / 100
        figures["live_wss_p99_ms"] = (live.p99 * 100).rounded() / 100
        log(
            "TLS: connect + GET p50 \(Report.number(connect.p50)) ms (TCP \(Report.number(plainConnect.p50)) ms), catch-up \(Report.number(catchUp.perSecond)) msg/s, live over wss p50 \(Report.number(live.p50)) ms"
        )
        for client in ["bob-tls", "erin-tls"] { Subprocess.removeTree(work + "/client-" + client) }
    }

    /// A live receiver given `burstCount` events at once (the server's `live-hold` fault).
    private func burstWorkloads(into figures: inout [String: Double]) async throws {
        let fixture = try ServerFixture(
            directory: work + "/server-burst", history: 1,
            faults: try Faults(parsing: "live-hold=\(options.burstCount)"))
        defer {
            fixture.stop()
            Subprocess.removeTree(work + "/server-burst")
        }
        let burst = try await Burst.measure(
            fixture, clientRoot: work + "/client-burst", count: options.burstCount, runs: options.burstRuns)
        figures["burst_msgs_per_s"] = burst.perSecond.rounded()
        figures["burst_segment_writes"] = Double(burst.segmentWrites)
        log(
            "live burst of \(options.burstCount), \(burst.runs) runs: \(Report.number(burst.perSecond)) msg/s (median), at most \(burst.segmentWrites) segment writes"
        )
    }

    /// A first sync of many one-message conversations, from a cached data directory.
    private func conversationsWorkload(into figures: inout [String: Double]) async throws {
        let count = options.manyConversations
        let cached = try ServerFixture.manyConversations(count, cache: options.cache, log: log)
        let fixture = try ServerFixture(copying: cached, to: work + "/server-conversations")
        defer {
            fixture.stop()
            Subprocess.removeTree(work + "/server-conversations")
            Subprocess.removeTree(work + "/client-bob-conversations")
        }
        let sync = try await SyncWorkloads.manyConversations(
            fixture, clientPath: work + "/client-bob-conversations", count: count)
        figures["conversations_first_sync_s"] = (sync.seconds * 1000).rounded() / 1000
        figures["conversations_per_s"] = sync.perSecond.rounded()
        log(
            "first sync of \(count) conversations: \(Report.number(sync.seconds)) s, \(Report.number(sync.perSecond)) conversations/s"
        )
    }

    /// The reference server alone on loopback: POSTs/s, then live fan-out to 50 members.
    private func serverWorkloads(into figures: inout [String: Double]) throws {
        let fixture = try ServerFixture(directory: work + "/server-load", history: 1)
        defer {
            fixture.stop()
            Subprocess.removeTree(work + "/server-load")
        }
        let posts = try PostLoad.measure(fixture, seconds: options.postSeconds)
        figures["posts_per_s"] = posts.postsPerSecond.rounded()
        figures["posts_p50_ms"] = (posts.p50Milliseconds * 100).rounded() / 100
        figures["posts_p99_ms"] = (posts.p99Milliseconds * 100).rounded() / 100
        log("POSTs \(Report.number(posts.postsPerSecond))/s, p50 \(Report.number(posts.p50Milliseconds)) ms")
        let fanOut = try FanOut.measure(fixture, count: options.fanOutCount)
        figures["fanout_p50_ms"] = (fanOut.fromPostP50 * 100).rounded() / 100
        figures["fanout_p99_ms"] = (fanOut.fromPostP99 * 100).rounded() / 100
        figures["fanout_from_reply_p50_ms"] = (fanOut.fromReplyP50 * 100).rounded() / 100
        figures["fanout_from_reply_p99_ms"] = (fanOut.fromReplyP99 * 100).rounded() / 100
        figures["fanout_missing"] = Double(fanOut.missing)
        log(
            "fan-out \(options.fanOutCount) × \(fanOut.members) = \(fanOut.deliveries) deliveries (\(fanOut.missing) missing): p50 \(Report.number(fanOut.fromPostP50)) ms, p99 \(Report.number(fanOut.fromPostP99)) ms (from the POST)"
        )
    }
}
