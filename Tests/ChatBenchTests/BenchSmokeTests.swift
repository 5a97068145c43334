import ChatDomain
import ChatStore
import ChatSync
import ChatTestSupport
import Foundation
import Testing

@testable import chatdir_bench

/// The bench's workload functions run end to end on tiny sizes: they work and report sane
/// figures. No timing is asserted (the machine is shared); `chatdir-bench` itself is not run.
@Suite(.ownThreads, .serialized) struct BenchSmokeTests {
    final class Scratch {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent(
            "chatdir-bench-test-\(UUID().uuidString)"
        ).path
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    /// A store of `count` messages in c1 as `chatdir seed --members 5` makes it.
    private func seeded(_ scratch: Scratch, count: Int) throws -> Store {
        var generator = FixtureGenerator(userID: try UserID("alice"))
        generator.conversations = 1
        generator.messagesPerConversation = count
        generator.members = 5
        return try generator.generate(at: scratch.path + "/store-\(count)")
    }

    @Test("the store workloads run on 200 messages and leave the store as they found it")
    func storeWorkloads() throws {
        let scratch = Scratch()
        let store = try seeded(scratch, count: 200)
        #expect(try StoreWorkloads.open(store, runs: 3) > 0)
        let append = try StoreWorkloads.append(store, existing: 200, count: 5)
        #expect(append.p50 > 0 && append.p99 >= append.p50)
        #expect(try store.conversation(StoreWorkloads.c1).newestMessages(limit: 1).messages.last?.sequence == 200)
        let scan = try StoreWorkloads.scan(store)
        let grep = try StoreWorkloads.grep(store)
        #expect(scan.count > 0)
        #expect(grep.count >= scan.count) // grep counts lines; a line is one message here
        let ingest = try StoreWorkloads.ingest(at: scratch.path + "/ingest", total: 1000, page: 500)
        #expect(ingest.perSecond > 0)
        #expect(try ingest.store.conversation(StoreWorkloads.c1).segmentRanges().count == 10)
        #expect(try StoreWorkloads.outbox(ingest.store, count: 5) > 0)
        #expect(try ingest.store.conversation(StoreWorkloads.c1).outbox().count == 5)
        #expect(try StoreWorkloads.git(at: scratch.path + "/git", pages: 2, pageSize: 100) > 0)
    }

    @Test("the search row runs the built chatdir search and finds what the library scan counts")
    func searchWorkload() throws {
        let scratch = Scratch()
        let store = try seeded(scratch, count: 200)
        let scan = try StoreWorkloads.scan(store)
        let search = try StoreWorkloads.search(chatdir: builtProduct("chatdir").path, store: store, runs: 1)
        #expect(search.count == scan.count)
        #expect(search.milliseconds > 0)
        let counted = try StoreWorkloads.search(
            chatdir: builtProduct("chatdir").path, store: store, counting: true, runs: 1)
        #expect(counted.count == scan.count)
    }

    @Test("the sync workloads run against an in-process server: catch-up, drain, live latency")
    func syncWorkloads() async throws {
        let scratch = Scratch()
        let fixture = try ServerFixture(directory: scratch.path + "/server", history: 300)
        defer { fixture.stop() }
        let catchUp = try await SyncWorkloads.catchUp(fixture, clientPath: scratch.path + "/bob", expected: 300)
        #expect(catchUp.perSecond > 0)
        let drain = try await SyncWorkloads.drain(fixture, clientPath: scratch.path + "/carol", count: 10)
        #expect(drain.perSecond > 0)
        let live = try await LiveLatency.measure(fixture, clientPath: scratch.path + "/erin", count: 5, warmUp: 1)
        #expect(live.count == 5 && live.fromSendP50 > 0)
    }

    @Test(
        "the first sync of many conversations runs at 1,000: every conversation stored once, caught up, delivered, and the cached data directory left as made"
    )
    func manyConversations() async throws {
        let scratch = Scratch()
        let count = 1000
        let cached = try ServerFixture.manyConversations(count, cache: scratch.path + "/cache", log: { _ in })
        // reused
        #expect(try ServerFixture.manyConversations(count, cache: scratch.path + "/cache", log: { _ in }) == cached)
        let before = try FileManager.default.subpathsOfDirectory(atPath: cached).sorted()
        let fixture = try ServerFixture(copying: cached, to: scratch.path + "/server")
        defer { fixture.stop() }
        let sync = try await SyncWorkloads.manyConversations(fixture, clientPath: scratch.path + "/bob", count: count)
        #expect(sync.perSecond > 0)
        let store = try Store.open(at: scratch.path + "/bob")
        let api = APIClient(server: fixture.address, token: "bob-token")
        for index in [1, 2, 500, 999, 1000] {
            let id = try ConversationID("c\(index)")
            let conversation = store.conversation(id)
            #expect(try conversation.newestMessages(limit: 5).messages.map(\.sequence) == [1], "c\(index)")
            #expect(conversation.caughtUpMarker() == 1, "c\(index)")
            #expect(try conversation.positions()?[try UserID("bob")].deliveredUpTo == 1, "c\(index)")
            #expect(try await api.receipts(id)[try UserID("bob")].deliveredUpTo == 1, "c\(index) on the server")
        }
        #expect(try store.conversationIDs().count == count)
        #expect(StoreChecker.check(root: store.root).errors.isEmpty)
        #expect(try FileManager.default.subpathsOfDirectory(atPath: cached).sorted() == before)
    }

    @Test(
        "the TLS workloads run against an in-process server over https and wss: connect, catch-up, live latency",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"),
            "needs the openssl command line (CI installs it)"))
    func tlsWorkloads() async throws {
        let scratch = Scratch()
        let fixture = try ServerFixture(directory: scratch.path + "/server", history: 300, tls: true)
        defer { fixture.stop() }
        #expect(fixture.address.scheme == .https)
        let connect = try await SyncWorkloads.connect(fixture, count: 3)
        #expect(connect.p50 > 0)
        let catchUp = try await SyncWorkloads.catchUp(fixture, clientPath: scratch.path + "/bob", expected: 300)
        #expect(catchUp.perSecond > 0)
        let live = try await LiveLatency.measure(fixture, clientPath: scratch.path + "/erin", count: 5, warmUp: 1)
        #expect(live.count == 5 && live.fromSendP50 > 0)
    }

    @Test("the server workloads (--only server) run: POSTs/s from 8 clients, fan-out to 50 live members")
    func serverWorkloads() throws {
        let scratch = Scratch()
        let fixture = try ServerFixture(directory: scratch.path + "/server", history: 1)
        defer { fixture.stop() }
        let posts = try PostLoad.measure(fixture, seconds: 1)
        #expect(posts.postsPerSecond > 0)
        let fanOut = try FanOut.measure(fixture, count: 3)
        #expect(fanOut.members == 50)
        #expect(fanOut.deliveries == 150 && fanOut.missing == 0)
        #expect(fanOut.fromPostP50 > 0)
        #expect(try BenchOptions.parse(["--only", "server"]).runs("server"))
    }

    @Test("the peer runner runs with tiny counts and the bridge reads its JSON")
    func peers() throws {
        let scratch = Scratch()
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let runner = PeerRunner(
            python: "python3", script: root.path + "/bench/peers_runner.py", workdir: scratch.path + "/peers")
        let result = try runner.run(
            sizes: [200], quick: true, maildirMax: 200,
            extraArguments: [
                "--open-runs", "3", "--append-count", "5", "--ingest-total", "1000", "--outbox-count", "5",
                "--git-pages", "2",
            ])
        for peer in ["sqlite", "maildir"] {
            let figures = try #require(result.figures[peer])
            for key in [
                "open_us_200", "append_p50_us_200", "append_p99_us_200", "scan_ms_200", "ingest_msgs_per_s",
                "outbox_us_median", "git_bytes_after_2_pages",
            ] {
                #expect((figures[key] ?? -1) >= 0, "\(peer) \(key)") // a warm 200-message scan may round to 0.0 ms
            }
        }
        #expect(result.figures["sqlite"]?["scan_count_200"] == result.figures["maildir"]?["scan_count_200"])
    }

    @Test(
        "the sqlite3 shell rows run on a small WAL database: the view and list queries answer what chatdir prints, the insert lands in a copy",
        .enabled(if: SQLiteShell.locate() != nil))
    func sqliteShell() throws {
        let scratch = Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
        let sqlite3 = try #require(SQLiteShell.locate())
        let database = scratch.path + "/chat.db"
        var schema =
            "pragma journal_mode = wal; create table messages (conversation TEXT, sequence INTEGER, clientMessageId TEXT UNIQUE, senderId TEXT, sentAt TEXT, text TEXT, PRIMARY KEY (conversation, sequence)); create table outbox (clientMessageId TEXT PRIMARY KEY, conversation TEXT, text TEXT, createdAt TEXT, state TEXT);"
        for sequence in 1...60 {
            schema +=
                " insert into messages values ('c1', \(sequence), 'id\(sequence)', 'bob', '2026-11-29T10:00:00.000Z', 'text \(sequence)');"
        }
        schema += " insert into messages values ('c2', 1, 'other', 'carol', '2026-11-29T11:00:00.000Z', 'hello');"
        try Subprocess.capture([sqlite3, database, schema])
        let view = try Subprocess.capture([sqlite3, database, SQLiteShell.viewQuery]).output
        let rows = String(decoding: view, as: UTF8.self).split(separator: "\n")
        #expect(rows.count == 50)
        #expect(rows.first == "60|bob|2026-11-29T10:00:00.000Z|text 60")
        let list = try Subprocess.capture([sqlite3, database, SQLiteShell.listQuery]).output
        #expect(
            String(decoding: list, as: UTF8.self)
                == "c1|60|bob|2026-11-29T10:00:00.000Z|text 60|0|0\nc2|1|carol|2026-11-29T11:00:00.000Z|hello|0|0\n")
        let timed = try SQLiteShell.paired(["/bin/true"], sqlite3, database: database, SQLiteShell.viewQuery, runs: 1)
        #expect(timed.chatdir > 0 && timed.sqlite3 > 0)
        let send = try SQLiteShell.send(
            chatdir: builtProduct("chatdir").path, sqlite3, database: database, scratch: scratch.path + "/send", runs: 1
        )
        #expect(send.chatdir > 0 && send.sqlite3 > 0)
        #expect(!FileManager.default.fileExists(atPath: scratch.path + "/send"))
        let outbox = try Subprocess.capture([sqlite3, database, "select count(*) from outbox"]).output
        #expect(String(decoding: outbox, as: UTF8.self) == "0\n") // the inserts went into the copy
    }

    @Test("a chatdir built without --disable-local-rpath is noticed (its $ORIGIN run path), one built with it is not")
    func localRunPath() throws {
        let scratch = Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
        #expect(
            FileManager.default.createFile(
                atPath: scratch.path + "/with", contents: Data("\u{7F}ELF...$ORIGIN\0...".utf8)))
        #expect(
            FileManager.default.createFile(
                atPath: scratch.path + "/without", contents: Data("\u{7F}ELF...ORIGINAL\0...".utf8)))
        #expect(Bench.hasLocalRunPath(scratch.path + "/with"))
        #expect(!Bench.hasLocalRunPath(scratch.path + "/without"))
        #expect(!Bench.hasLocalRunPath(scratch.path + "/missing"))
    }

    @Test("paired timings take turns after one warm-up run of each, and each round swaps which goes first")
    func pairedTurns() throws {
        let scratch = Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
        let log = scratch.path + "/turns"
        let walls = try CLIWorkloads.pairedMedianWalls(
            ["/bin/sh", "-c", "echo a >> \(log)"], ["/bin/sh", "-c", "echo b >> \(log)"], runs: 3)
        #expect(walls.first > 0 && walls.second > 0)
        // Warm-up a b, then b a, a b, b a: each program first in half the rounds.
        #expect(try String(contentsOfFile: log, encoding: .utf8) == "a\nb\nb\na\na\nb\nb\na\n")
    }

    @Test("a program's files for the page cache are the program and the libraries ldd lists; a missing file is named")
    func programFiles() throws {
        let files = PageCache.programFiles("/bin/sh")
        #expect(files.first == "/bin/sh")
        #expect(files.contains { $0.hasSuffix("/libc.so.6") })
        #expect(files.allSatisfy { $0.hasPrefix("/") })
        let scratch = Scratch()
        try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: scratch.path + "/file", contents: Data("x".utf8)))
        #expect(PageCache.evict([scratch.path + "/file", scratch.path + "/missing"]) == [scratch.path + "/missing"])
        #expect(FileManager.default.contents(atPath: scratch.path + "/file") == Data("x".utf8))
    }

    @Test(
        "the in-process Maildir sequence leaves what the peer runner's Maildir leaves: named files in the folder, nothing in tmp/"
    )
    func maildirSequence() throws {
        let scratch = Scratch()
        var maildir = try MaildirSequence(root: scratch.path + "/maildir")
        try maildir.queue("on my way")
        let message = Message(
            sequence: 10_001, clientMessageID: try ClientMessageID("C14C9B80-0000-4000-8000-000000000001"),
            senderID: try UserID("bob"), text: "pizza?", sentAt: "2026-12-05T08:00:00.000Z")
        try maildir.save(message)
        let root = scratch.path + "/maildir"
        #expect(try FileManager.default.contentsOfDirectory(atPath: root + "/tmp").isEmpty)
        let queued = try FileManager.default.contentsOfDirectory(atPath: root + "/outbox")
        #expect(queued.count == 1 && queued[0].count == 20 + 1 + 36 + 5 && queued[0].hasSuffix(".json"), "\(queued)")
        let line = try String(contentsOfFile: root + "/outbox/" + queued[0], encoding: .utf8)
        #expect(line.hasPrefix("{\"clientMessageId\": \"") && line.hasSuffix("\"text\": \"on my way\"}\n"), "\(line)")
        let saved = try String(contentsOfFile: root + "/c1/0000010001.json", encoding: .utf8)
        #expect(
            saved
                == "{\"clientMessageId\":\"C14C9B80-0000-4000-8000-000000000001\",\"sender\":\"bob\",\"sentAt\":\"2026-12-05T08:00:00.000Z\",\"sequence\":10001,\"text\":\"pizza?\"}\n"
        )
        #expect(MaildirSequence.padded(42, 5) == "00042" && MaildirSequence.padded(123_456, 3) == "123456")
    }

    @Test("the table shows ratios to the best peer and judges each goal")
    func report() throws {
        var report = Report(options: try BenchOptions.parse(["--sizes", "10000,1000000"]))
        report.figures = [
            "chatdir": [
                "open_us_10000": 50, "open_us_1000000": 80, "ingest_msgs_per_s": 90_000, "view_peak_rss_mib": 11,
                "live_p99_ms": 25,
            ],
            "sqlite": ["open_us_10000": 40, "open_us_1000000": 50, "ingest_msgs_per_s": 100_000],
            "maildir": ["open_us_10000": 500, "ingest_msgs_per_s": 2000],
        ]
        let rows = Dictionary(report.rows.map { ($0.workload, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(rows["open newest 50, N=1M"]?.ratio == 1.6)
        #expect(rows["open newest 50, N=1M"]?.met == false)
        #expect(rows["open newest 50, N=10k"]?.met == true) // 1.25×: the goal (≤ 1.5×) holds at every size
        #expect(rows["ingest 100k in pages of 500"]?.ratio == 0.9)
        #expect(rows["ingest 100k in pages of 500"]?.met == false)
        #expect(rows["chatdir view peak RSS, N=1M"]?.met == true)
        #expect(rows["live latency p99 (201 → watcher)"]?.met == false)
        #expect(rows["observer latency (rename → redraw)"]?.missing != nil)
        #expect(rows["chatdir view --limit 50 vs sqlite3 shell, N=10k"]?.met == nil)
        let table = report.table()
        #expect(table.contains("| open newest 50, N=1M | µs | 80.0 | 50.0 | — | 1.60× | ≤ 1.5× SQLite | **no** |"))
        #expect(try JSONSerialization.jsonObject(with: report.json()) is [String: Any])
    }

    @Test("the Matrix rows compare chatdir with the minimal client and judge each goal")
    func matrixRows() throws {
        var report = Report(options: try BenchOptions.parse(["--only", "matrix"]))
        #expect(report.matrixTable().isEmpty)
        report.figures = [
            "chatdir": ["matrix_room_10k_s": 3, "matrix_rooms_200_s": 4, "matrix_live_p50_ms": 30],
            "matrix-pager": ["matrix_room_10k_s": 2, "matrix_rooms_200_s": 3, "matrix_live_p50_ms": 25],
        ]
        let rows = Dictionary(report.matrixRows.map { ($0.workload, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(rows["first sync of one room of 10k messages (process wall)"]?.ratio == 1.5)
        #expect(rows["first sync of one room of 10k messages (process wall)"]?.met == false)
        #expect(rows["first sync of 200 rooms of 50 messages (process wall)"]?.met == true)
        #expect(rows["live p50: PUT sent → segment renamed / /sync answer decoded"]?.met == true)
        #expect(rows["live p90: the same"] == nil)
        #expect(
            report.matrixTable().contains(
                "| first sync of one room of 10k messages (process wall) | s | 3.00 | 2.00 | 1.50× | ≤ 1.2× the minimal client | **no** |"
            ))
        #expect(!report.table().contains("10k messages (process wall)"))
        let json = try #require(try JSONSerialization.jsonObject(with: report.json()) as? [String: Any])
        let rowObjects = try #require(json["rows"] as? [[String: Any]])
        #expect(rowObjects.contains { $0["matrix_pager"] as? Double == 2 })
    }

    @Test("the Matrix rows run only when named, and say why they are skipped without Synapse")
    func matrixGroup() throws {
        #expect(try !BenchOptions.parse([]).runs("matrix"))
        #expect(try BenchOptions.parse([]).runs("hostile"))
        #expect(try BenchOptions.parse(["--only", "matrix,cli"]).runs("matrix"))
        let scratch = Scratch()
        let missing = scratch.path + "/no-venv"
        #expect(MatrixRunner.virtualEnvironment(["CHATDIR_SYNAPSE_VENV": missing]) == missing)
        #expect(MatrixRunner.virtualEnvironment(["HOME": "/home/a"]) == "/home/a/.cache/chatdir/synapse-venv")
        let runner = MatrixRunner(
            python: "python3", script: "bench/matrix_runner.py", workdir: scratch.path, virtualEnvironment: missing,
            chatdir: "chatdir")
        let reason = try #require(runner.skipReason())
        #expect(reason.contains("Synapse is not installed") && reason.contains(missing + "/bin/python"))
    }

    @Test("the process-level rows compare chatdir with the sqlite3 shell and judge ≤ 1.0×")
    func sqliteShellRows() throws {
        var report = Report(options: try BenchOptions.parse(["--sizes", "10000"]))
        report.figures = [
            "chatdir": ["cli_view_ms_10000": 3, "cli_send_ms": 4, "cli_list_ms_10000": 2],
            "sqlite": ["cli_view_ms_10000": 2, "cli_send_ms": 4.5, "cli_list_ms_10000": 2],
        ]
        let rows = Dictionary(report.rows.map { ($0.workload, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(rows["chatdir view --limit 50 vs sqlite3 shell, N=10k"]?.ratio == 1.5)
        #expect(rows["chatdir view --limit 50 vs sqlite3 shell, N=10k"]?.met == false)
        #expect(rows["chatdir send vs sqlite3 insert (WAL, synchronous=full)"]?.met == true)
        #expect(rows["chatdir list vs sqlite3 shell, N=10k"]?.met == true)
        #expect(
            report.table().contains(
                "| chatdir view --limit 50 vs sqlite3 shell, N=10k | ms | 3.00 | 2.00 | — | 1.50× | ≤ 1.0× sqlite3 | **no** |"
            ))
    }

    @Test(
        "options: --quick shrinks the sizes, bad values are refused with the reason",
        arguments: [
            (["--quick"], [10_000, 100_000]), (["--sizes", "1000,2_000"], [1000, 2000]),
            ([], [10_000, 100_000, 1_000_000]),
        ])
    func options(arguments: [String], sizes: [Int]) throws {
        #expect(try BenchOptions.parse(arguments).sizes == sizes)
    }

    @Test(
        "options that make no sense are refused",
        arguments: [["--sizes", "0"], ["--only", "nothing"], ["--json"], ["--frobnicate"]])
    func badOptions(arguments: [String]) {
        #expect(throws: BenchOptions.UsageError.self) { try BenchOptions.parse(arguments) }
    }
}
