import Foundation

/// The table `chatdir-bench` prints and the JSON it writes: every workload with chatdir's
/// figure, the peers', chatdir's ratio to the best peer, and the workload's goal with whether it
/// is met. A workload without a peer shows its goal only.
struct Report {
    /// Figure name → value, per side ("chatdir", "sqlite", "maildir", "matrix-pager").
    var figures: [String: [String: Double]] = [:]
    var notes: [String] = []
    var options: BenchOptions
    var machine: [String: String] = [:]

    struct Row {
        var workload: String
        var unit: String
        var chatdir: Double?
        var sqlite: Double?
        var maildir: Double?
        /// A Matrix row's peer client's figure: the minimal client (bench/matrix_pager.py), or
        /// the matrix-nio one (bench/matrix_nio_pager.py) as ``pagerKey`` says.
        var pager: Double?
        /// The name of ``pager`` in the JSON.
        var pagerKey = "matrix_pager"
        var lowerIsBetter = true
        var goal: String?
        /// nil when there is no figure to judge (or no goal).
        var met: Bool?
        /// Shown instead of a figure (a workload not measured here).
        var missing: String?

        /// chatdir ÷ the best peer (the lower for times and bytes, the higher for rates).
        var ratio: Double? {
            guard let chatdir else { return nil }
            let peers = [sqlite, maildir, pager].compactMap { $0 }
            guard let best = lowerIsBetter ? peers.min() : peers.max(), best > 0 else { return nil }
            return chatdir / best
        }
    }

    func value(_ side: String, _ key: String) -> Double? { figures[side]?[key] }

    /// A row of a peer-compared workload; `goal` is a factor against the figure of `peer`
    /// ("sqlite" unless said; "maildir" for the durable writes, whose floor is its two fsyncs).
    private func compared(
        _ workload: String, unit: String, key: String, lowerIsBetter: Bool = true, goalFactor: Double? = nil,
        goalText: String? = nil,
        against peer: String = "sqlite"
    ) -> Row {
        var row = Row(
            workload: workload, unit: unit, chatdir: value("chatdir", key), sqlite: value("sqlite", key),
            maildir: value("maildir", key), lowerIsBetter: lowerIsBetter)
        if let goalFactor {
            let name = peer == "maildir" ? "Maildir" : "SQLite"
            row.goal =
                goalText
                ?? (lowerIsBetter ? "≤ \(Self.factor(goalFactor)) \(name)" : "≥ \(Self.factor(goalFactor)) \(name)")
            if let chatdir = row.chatdir, let reference = peer == "maildir" ? row.maildir : row.sqlite {
                row.met = lowerIsBetter ? chatdir <= goalFactor * reference : chatdir >= goalFactor * reference
            }
        }
        return row
    }

    /// A chatdir-only row judged against an absolute bound.
    private func alone(_ workload: String, unit: String, key: String, atMost: Double? = nil, atLeast: Double? = nil)
        -> Row
    {
        var row = Row(workload: workload, unit: unit, chatdir: value("chatdir", key))
        if let atMost {
            row.goal = "≤ \(Self.number(atMost)) \(unit)"
            row.met = row.chatdir.map { $0 <= atMost }
        } else if let atLeast {
            row.goal = "≥ \(Self.number(atLeast)) \(unit)"
            row.lowerIsBetter = false
            row.met = row.chatdir.map { $0 >= atLeast }
        }
        return row
    }

    var rows: [Row] {
        var rows: [Row] = []
        let sizes = options.sizes.sorted()
        let largest = sizes.last ?? 0
        for size in sizes {
            // Goal: ≤ 1.5× SQLite in-process at every size (and flat, the row below).
            rows.append(
                compared("open newest 50, N=\(Self.count(size))", unit: "µs", key: "open_us_\(size)", goalFactor: 1.5))
        }
        if let small = sizes.first, sizes.count > 1, let low = value("chatdir", "open_us_\(small)"),
            let high = value("chatdir", "open_us_\(largest)")
        {
            var row = Row(
                workload: "open flatness, N=\(Self.count(largest)) ÷ N=\(Self.count(small))", unit: "×",
                chatdir: high / low)
            if let sqliteLow = value("sqlite", "open_us_\(small)"),
                let sqliteHigh = value("sqlite", "open_us_\(largest)")
            {
                row.sqlite = sqliteHigh / sqliteLow
            }
            if let maildirLow = value("maildir", "open_us_\(small)"),
                let maildirHigh = value("maildir", "open_us_\(largest)")
            {
                row.maildir = maildirHigh / maildirLow
            }
            row.goal = "flat (≤ 1.25×, our reading)"
            row.met = high / low <= 1.25
            rows.append(row)
        }
        for size in sizes {
            // Goal: one segment rewritten costs at most 10% over Maildir's two fsyncs.
            rows.append(
                compared(
                    "durable append p50, N=\(Self.count(size))", unit: "µs", key: "append_p50_us_\(size)",
                    goalFactor: 1.1, against: "maildir"))
            rows.append(
                compared(
                    "durable append p99, N=\(Self.count(size))", unit: "µs", key: "append_p99_us_\(size)",
                    goalFactor: 1.5))
        }
        for size in sizes {
            // The same, by turns with the Maildir sequence in this process (MaildirSequence): both
            // sides' fsyncs at the same moment of the disk.
            rows.append(
                compared(
                    "durable append p50 by turns with Maildir's sequence, N=\(Self.count(size))", unit: "µs",
                    key: "append_paired_p50_us_\(size)", goalFactor: 1.1, against: "maildir"))
        }
        rows.append(
            compared(
                "ingest \(Self.count(options.ingestTotal)) in pages of 500", unit: "msg/s", key: "ingest_msgs_per_s",
                lowerIsBetter: false, goalFactor: 1.0))
        // Goal: the same two fsyncs as Maildir and nothing else.
        rows.append(
            compared(
                "outbox send, median of \(Self.count(options.outboxCount))", unit: "µs", key: "outbox_us_median",
                goalFactor: 1.0, against: "maildir"))
        rows.append(
            compared(
                "outbox send by turns with Maildir's sequence, median of \(Self.count(options.outboxCount))",
                unit: "µs", key: "outbox_paired_us_median", goalFactor: 1.0, against: "maildir"))
        for size in sizes {
            rows.append(
                compared(
                    "scan \"pizza\", N=\(Self.count(size)) (library)", unit: "ms", key: "scan_ms_\(size)",
                    goalFactor: size == 100_000 ? 1.0 : nil, goalText: "≤ 1.0× SQLite LIKE"))
            var grep = compared("scan \"pizza\", N=\(Self.count(size)) (grep -rF)", unit: "ms", key: "grep_ms_\(size)")
            grep.sqlite = value("sqlite", "scan_ms_\(size)")
            grep.maildir = value("maildir", "scan_ms_\(size)")
            rows.append(grep)
            // The command, start-up included, against the same LIKE scan: counting, as SQLite's
            // count(*) does (the goal), and printing every hit as JSON (shown, no goal: SQLite's
            // figure prints nothing).
            var counted = compared(
                "search \"pizza\", N=\(Self.count(size)) (chatdir search --count)", unit: "ms",
                key: "search_count_ms_\(size)")
            counted.sqlite = value("sqlite", "scan_ms_\(size)")
            counted.maildir = value("maildir", "scan_ms_\(size)")
            counted.goal = "≤ 1.0× SQLite LIKE"
            if let chatdir = counted.chatdir, let sqlite = counted.sqlite { counted.met = chatdir <= sqlite }
            rows.append(counted)
            var search = compared(
                "search \"pizza\", N=\(Self.count(size)) (chatdir search --json, every hit printed)", unit: "ms",
                key: "search_ms_\(size)")
            search.sqlite = value("sqlite", "scan_ms_\(size)")
            search.maildir = value("maildir", "scan_ms_\(size)")
            rows.append(search)
        }
        let pagesKey = "git_bytes_after_\(options.gitPages)_pages"
        // The goal is stated for 100 pages; in 20 (--quick) the fixed files of an empty .git weigh more.
        rows.append(
            compared(
                "git growth, \(options.gitPages) pages of 100", unit: "bytes", key: pagesKey,
                goalFactor: options.gitPages == 100 ? 0.5 : nil))
        rows.append(
            alone("chatdir view peak RSS, N=\(Self.count(largest))", unit: "MiB", key: "view_peak_rss_mib", atMost: 20))
        rows.append(alone("chatdir view wall, N=\(Self.count(largest))", unit: "ms", key: "view_wall_ms", atMost: 30))
        rows.append(alone("chatdir send wall", unit: "ms", key: "send_wall_ms"))
        // Process level against the sqlite3 command line on the same data.
        for size in sizes {
            rows.append(
                compared(
                    "chatdir view --limit 50 vs sqlite3 shell, N=\(Self.count(size))", unit: "ms",
                    key: "cli_view_ms_\(size)", goalFactor: 1.0, goalText: "≤ 1.0× sqlite3"))
        }
        rows.append(
            compared(
                "chatdir send vs sqlite3 insert (WAL, synchronous=full)", unit: "ms", key: "cli_send_ms",
                goalFactor: 1.0, goalText: "≤ 1.0× sqlite3"))
        for size in sizes {
            rows.append(
                compared(
                    "chatdir list vs sqlite3 shell, N=\(Self.count(size))", unit: "ms", key: "cli_list_ms_\(size)",
                    goalFactor: 1.0, goalText: "≤ 1.0× sqlite3"))
        }
        rows.append(
            alone(
                "catch-up \(Self.count(options.catchUpMessages)) from local server", unit: "msg/s",
                key: "catchup_msgs_per_s", atLeast: 50_000))
        rows.append(
            alone(
                "first sync of \(Self.count(options.manyConversations)) one-message conversations", unit: "s",
                key: "conversations_first_sync_s",
                atMost: options.manyConversations == 10_000 ? 10 : nil))
        rows.append(
            alone(
                "first sync of \(Self.count(options.manyConversations)) one-message conversations, rate",
                unit: "conversations/s", key: "conversations_per_s",
                atLeast: options.manyConversations == 10_000 ? 1_000 : nil))
        rows.append(
            alone("\(Self.count(options.drainCount)) queued sends drained", unit: "msg/s", key: "drain_msgs_per_s"))
        rows.append(alone("live latency p50 (201 → watcher)", unit: "ms", key: "live_p50_ms", atMost: 5))
        rows.append(alone("live latency p99 (201 → watcher)", unit: "ms", key: "live_p99_ms", atMost: 20))
        rows.append(
            alone("TLS connect + GET /v1/me p50 (full handshake, verified)", unit: "ms", key: "tls_connect_p50_ms"))
        rows.append(alone("TCP connect + GET /v1/me p50 (the same, plain)", unit: "ms", key: "tcp_connect_p50_ms"))
        rows.append(
            alone(
                "catch-up \(Self.count(options.catchUpMessages)) over https", unit: "msg/s",
                key: "catchup_tls_msgs_per_s", atLeast: 50_000))
        rows.append(alone("live latency p50 over wss (201 → watcher)", unit: "ms", key: "live_wss_p50_ms", atMost: 5))
        rows.append(alone("live latency p99 over wss (201 → watcher)", unit: "ms", key: "live_wss_p99_ms", atMost: 20))
        rows.append(
            alone(
                "live burst of \(Self.count(options.burstCount)): segment writes", unit: "writes",
                key: "burst_segment_writes", atMost: 20))
        rows.append(
            alone(
                "live burst of \(Self.count(options.burstCount)): msg/s", unit: "msg/s", key: "burst_msgs_per_s",
                atLeast: 20_000))
        rows.append(alone("server POSTs/s, 8 keep-alive clients", unit: "POST/s", key: "posts_per_s"))
        rows.append(alone("live fan-out to 50 members p50 (POST → event)", unit: "ms", key: "fanout_p50_ms"))
        rows.append(alone("live fan-out to 50 members p99 (POST → event)", unit: "ms", key: "fanout_p99_ms"))
        rows.append(
            alone(
                "hostile JSON: 8 MiB object of distinct keys, refused", unit: "ms", key: "hostile_keys_refused_ms",
                atMost: 1000))
        rows.append(
            alone(
                "hostile JSON: the same object parsed (key cap raised)", unit: "ms", key: "hostile_keys_parsed_ms",
                atMost: 1000))
        rows.append(
            alone(
                "hostile JSON: 8 MiB array of 4M elements, refused", unit: "ms", key: "hostile_array_refused_ms",
                atMost: 1000))
        rows.append(
            Row(
                workload: "observer latency (rename → redraw)", unit: "ms",
                missing: "see observer-latency (BENCHMARKS.md)"))
        return rows.filter { $0.chatdir != nil || $0.sqlite != nil || $0.maildir != nil || $0.missing != nil }
    }

    /// The Matrix rows (`--only matrix`): chatdir's release binary against the minimal clients
    /// of bench/matrix_pager.py, the same homeserver, in the same run.
    var matrixRows: [Row] {
        func row(
            _ workload: String, unit: String, key: String, goalFactor: Double?, peer: String = "matrix-pager",
            peerName: String = "the minimal client"
        ) -> Row {
            var row = Row(workload: workload, unit: unit, chatdir: value("chatdir", key), pager: value(peer, key))
            row.pagerKey = peer.replacingOccurrences(of: "-", with: "_")
            if let goalFactor {
                row.goal = "≤ \(Self.factor(goalFactor)) \(peerName)"
                if let chatdir = row.chatdir, let pager = row.pager { row.met = chatdir <= goalFactor * pager }
            }
            return row
        }
        let rows = [
            row(
                "first sync of one room of 10k messages (process wall)", unit: "s", key: "matrix_room_10k_s",
                goalFactor: 1.2),
            row(
                "the same, against matrix-nio paging it into a file (process wall)", unit: "s",
                key: "matrix_room_10k_s", goalFactor: 1.0, peer: "matrix-nio", peerName: "the matrix-nio client"),
            row(
                "first sync of 200 rooms of 50 messages (process wall)", unit: "s", key: "matrix_rooms_200_s",
                goalFactor: 1.5),
            row(
                "live p50: PUT sent → segment renamed / /sync answer decoded", unit: "ms", key: "matrix_live_p50_ms",
                goalFactor: 1.2),
            row(
                "live p90: the same", unit: "ms", key: "matrix_live_p90_ms", goalFactor: nil),
        ]
        return rows.filter { $0.chatdir != nil || $0.pager != nil }
    }

    /// The Matrix table, as Markdown; empty when the Matrix rows did not run.
    func matrixTable() -> String {
        let rows = matrixRows
        guard !rows.isEmpty else { return "" }
        var lines = [
            "| workload | unit | chatdir | peer client | ratio | goal | met |",
            "| --- | --- | ---: | ---: | ---: | --- | --- |",
        ]
        for row in rows {
            let ratio = row.ratio.map { String(format: "%.2f×", $0) } ?? "—"
            let met = row.met.map { $0 ? "yes" : "**no**" } ?? "—"
            lines.append(
                "| \(row.workload) | \(row.unit) | \(row.chatdir.map(Self.number) ?? "—") | \(row.pager.map(Self.number) ?? "—") | \(ratio) | \(row.goal ?? "—") | \(met) |"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// The table, as Markdown (it reads as plain text too).
    func table() -> String {
        var lines = [
            "| workload | unit | chatdir | SQLite | Maildir | ratio to best peer | goal | met |",
            "| --- | --- | ---: | ---: | ---: | ---: | --- | --- |",
        ]
        for row in rows {
            let ratio = row.ratio.map { String(format: "%.2f×", $0) } ?? "—"
            let met = row.met.map { $0 ? "yes" : "**no**" } ?? "—"
            let chatdir = row.missing ?? row.chatdir.map(Self.number) ?? "—"
            lines.append(
                "| \(row.workload) | \(row.unit) | \(chatdir) | \(row.sqlite.map(Self.number) ?? "—") | \(row.maildir.map(Self.number) ?? "—") | \(ratio) | \(row.goal ?? "—") | \(met) |"
            )
        }
        return lines.joined(separator: "\n")
    }

    /// Every raw figure, the rows and the machine, as JSON.
    func json() throws -> Data {
        var rowObjects: [[String: Any]] = []
        for row in rows + matrixRows {
            var object: [String: Any] = ["workload": row.workload, "unit": row.unit]
            if let value = row.chatdir { object["chatdir"] = value }
            if let value = row.sqlite { object["sqlite"] = value }
            if let value = row.maildir { object["maildir"] = value }
            if let value = row.pager { object[row.pagerKey] = value }
            if let value = row.ratio { object["ratio_to_best_peer"] = value }
            if let value = row.goal { object["goal"] = value }
            if let value = row.met { object["met"] = value }
            if let value = row.missing { object["missing"] = value }
            rowObjects.append(object)
        }
        let object: [String: Any] = [
            "figures": figures, "rows": rowObjects, "notes": notes, "machine": machine,
            "quick": options.quick, "sizes": options.sizes,
        ]
        return try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys])
    }

    static func factor(_ value: Double) -> String { String(format: "%.1f×", value) }

    static func count(_ value: Int) -> String {
        if value >= 1_000_000 && value % 1_000_000 == 0 { return "\(value / 1_000_000)M" }
        if value >= 1000 && value % 1000 == 0 { return "\(value / 1000)k" }
        return String(value)
    }

    /// Three significant figures at most below 1,000; whole numbers with thousands separators above.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "—" }
        if abs(value) >= 1000 {
            let digits = String(Int(value.rounded()))
            var grouped = ""
            for (index, character) in digits.reversed().enumerated() {
                if index > 0 && index % 3 == 0 && character != "-" { grouped.append(",") }
                grouped.append(character)
            }
            return String(grouped.reversed())
        }
        if abs(value) >= 100 { return String(format: "%.0f", value) }
        if abs(value) >= 10 { return String(format: "%.1f", value) }
        return String(format: "%.2f", value)
    }
}
