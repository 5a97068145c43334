import ChatDomain
import ChatStore
import ChatSystem

/// `chatdir status`: the sync worker, the outbox and the figures, from the store and the
/// worker's `.sync-status`; a health check for scripts (exit 0 or 75).
enum StatusCommand: Command {
    static let spec = CommandSpec(
        name: "status",
        summary: "Show the sync worker, the outbox and delivery figures; exit 75 when unhealthy.",
        usage: ["[--json]"],
        options: [
            .init(name: "--json", value: nil, help: "one JSON object, for scripts and monitoring")
        ],
        discussion: """
            Whether a sync worker runs (its pid, since when, connected or reconnecting with why and
            when it tries next, how often the live connection was lost in the last hour), when each
            conversation last caught up with the server, the conversations the worker stopped on
            (a damaged file: its path and line; they get nothing new and their outbox waits until
            repaired), conversations made by `create` that the server does not have yet (or
            refused), the outbox (pending and failed messages, the oldest pending one's age), send-to-sent time (queued → stored as sent; p50 and p95 of the last 100
            deliveries) and time to open (p50 of the last 100 `view` and `chat` opens).
            Works without a worker: the figures are the last one's, and say so.

            Exit status: 0 healthy; 75 messages or creations wait and no sync worker runs, the
            worker cannot reach the server, or a conversation is stopped. Nothing here touches the network or the store's files.

            Examples:
              chatdir status
              chatdir status --json | jq .worker.connection
              chatdir status >/dev/null || chatdir sync --live &
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        try context.arguments.expectAtMost(0)
        let store = try context.openStore()
        let report = try StatusReport(
            store: store,
            runtime: RuntimeChannel(storeRoot: store.root, runtimeDirectory: context.environment["XDG_RUNTIME_DIR"]))
        let output = context.output
        if context.arguments.flag("--json") {
            output.print(JSONLine.encode(report.json))
        } else {
            for line in report.lines(hint: context.hint) { output.print(output.safe(line)) }
        }
        if let problem = report.problem(hint: context.hint) {
            output.error("chatdir status: " + problem)
            return 75
        }
        return 0
    }
}

/// What `chatdir status` found, read once; ``lines(hint:)`` and ``json`` show the same facts.
struct StatusReport {
    struct ConversationLine {
        var id: ConversationID
        var pending: Int
        var failed: Int
        var caughtUp: Int64?
        /// A `create` the server has not confirmed: pending, or refused (with its reason).
        var creation: QueuedCreation?
        /// Why the sync worker stopped syncing it (a damaged file), until it catches up again.
        var stopped: String?
    }

    /// The worker holding the store's lock, if one does.
    var running: Int32?
    /// The worker's figures, when they are the running worker's, or the last worker's.
    var status: SyncStatus?
    /// Why `.sync-status` could not be read.
    var unreadable: SyncStatusError?
    var conversations: [ConversationLine] = []
    /// Queue time (nanoseconds since 1970) of the oldest pending message.
    var oldestPending: UInt64?
    /// Times to open, in milliseconds (to the microsecond).
    var opens: [Double]
    /// Why the runtime directory is refused (another user's, a symlink), when it is.
    var runtimeRefused: String?
    var now: Int64

    init(store: Store, runtime: RuntimeChannel, now: Int64 = Int64(Clock.nanosecondsSince1970() / 1_000_000))
        throws(StoreError)
    {
        self.now = now
        opens = OpenTimes(runtime).recent()
        if let problem = runtime.problem(), problem.detail != nil { runtimeRefused = RuntimeChannel.refusal(problem) }
        switch SyncStatusFile.read(storeRoot: store.root) {
        case .success(let found)?: status = found
        case .failure(let error)?: unreadable = error
        case nil: break
        }
        if (try? Sys.readFile("/proc/locks")) != nil {
            running = StoreLock.holder(storeRoot: store.root)
        } else if let status, status.connection != .stopped, Sys.processExists(status.pid) {
            // No /proc/locks to ask: the file's own word and a live pid (kill(pid, 0)).
            running = status.pid
        }
        for id in try store.conversationIDs() {
            // Checked as every command checks a conversation: nothing is read through a link.
            let conversation = try store.existingConversation(id)
            let outbox = try conversation.outbox()
            let pending = outbox.filter { $0.state == .pending }
            if let first = pending.map(\.ordinal).min() { oldestPending = min(oldestPending ?? first, first) }
            // A damaged create.json is `check`'s to report; here it counts as no creation.
            let creation = try? conversation.queuedCreation()
            conversations.append(
                ConversationLine(
                    id: id, pending: pending.count, failed: outbox.count - pending.count,
                    caughtUp: status?.caughtUp[id], creation: creation, stopped: status?.stoppedConversations[id]))
        }
    }

    var pending: Int { conversations.reduce(0) { $0 + $1.pending } }
    var failed: Int { conversations.reduce(0) { $0 + $1.failed } }
    /// Conversations whose creation waits for the next sync.
    var pendingCreations: Int { conversations.filter { $0.creation?.state == .pending }.count }

    /// The figures belong to the worker that runs now (not a stale file of an earlier one).
    var current: SyncStatus? {
        guard let status, let running, status.pid == running, status.connection != .stopped else { return nil }
        return status
    }

    var reconnectsLastHour: Int {
        current?.reconnects.filter { $0 >= now - SyncStatus.reconnectWindow }.count ?? 0
    }

    /// Whole seconds until the running worker tries the server again, while it reconnects.
    var nextTryIn: Int? {
        guard let current, current.connection == .reconnecting, let next = current.nextTryAt else { return nil }
        return Int(max(0, (next - now + 999) / 1000))
    }

    var oldestPendingAge: Int64? {
        oldestPending.map { max(0, now - Int64($0 / 1_000_000)) }
    }

    /// Why the store is unhealthy (exit 75), or nil.
    func problem(hint: PasteHint) -> String? {
        let stopped = conversations.filter { $0.stopped != nil }
        if let first = stopped.first, let why = first.stopped {
            let more = stopped.count - 1
            let others = more > 0 ? "; \(more) more conversation\(plural(more)) stopped, each on its line above" : ""
            return SyncWorkerText.stopped(why, conversation: first.id, hint: hint) + others
        }
        if running == nil, pending > 0 || pendingCreations > 0 {
            var waiting: [String] = []
            if pending > 0 { waiting.append("\(pending) message\(plural(pending))") }
            if pendingCreations > 0 {
                waiting.append("\(pendingCreations) conversation creation\(plural(pendingCreations))")
            }
            let one = pending + pendingCreations == 1
            return
                "\(waiting.joined(separator: " and ")) wait\(one ? "s" : "") and no sync worker runs; start one: \(hint.command("sync", "--live"))"
        }
        if let current, current.connection == .reconnecting {
            return "the sync worker (pid \(current.pid)) cannot reach the server"
                + (current.problem.map { ": \($0)" } ?? "")
        }
        return nil
    }

    /// Nearest-rank percentile of `values` (nil when there are none).
    static func percentile<Value: Comparable>(_ values: [Value], _ fraction: Double) -> Value? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    /// A figure measured in whole milliseconds: below one reads `< 1 ms`, never `0 ms`.
    static func milliseconds(_ value: Int) -> String {
        value < 1 ? "< 1 ms" : "\(value) ms"
    }

    /// A figure measured to the microsecond, at a resolution that means something: `< 0.1 ms`,
    /// `0.3 ms`, `4.2 ms`, then whole milliseconds from 10 on (`18 ms`).
    static func milliseconds(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        if tenths < 1 { return "< 0.1 ms" }
        if tenths < 100 { return "\(tenths / 10).\(tenths % 10) ms" }
        return "\(Int(value.rounded())) ms"
    }

    static func time(_ milliseconds: Int64) -> String {
        TimeText().format(Clock.iso8601(nanoseconds: UInt64(max(0, milliseconds)) * 1_000_000))
    }

    static func iso(_ milliseconds: Int64) -> String {
        Clock.iso8601(nanoseconds: UInt64(max(0, milliseconds)) * 1_000_000)
    }

    /// `3 s`, `4 min`, `2 h 5 min`, `3 d`.
    static func age(_ milliseconds: Int64) -> String {
        let seconds = milliseconds / 1000
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min" }
        if seconds < 86_400 { return "\(seconds / 3600) h \(seconds % 3600 / 60) min" }
        return "\(seconds / 86_400) d"
    }

    func lines(hint: PasteHint) -> [String] {
        var lines: [String] = []
        if let current {
            var line =
                "sync worker: pid \(current.pid) (\(current.mode == .live ? "sync --live" : "sync")) since \(Self.time(current.startedAt)), \(current.connection.rawValue)"
            if current.connection == .reconnecting {
                line =
                    line.dropLast(current.connection.rawValue.count)
                    + SyncWorkerText.connection(current, nextTryIn: nextTryIn)
            }
            if current.mode == .live {
                line += "; \(reconnectsLastHour) reconnect\(plural(reconnectsLastHour)) in the last hour"
            }
            lines.append(line)
        } else if let running {
            lines.append(
                "sync worker: pid \(running) holds the store's lock (starting, or not a sync worker: no figures from it yet)"
            )
        } else if let status {
            let how = status.connection == .stopped ? "stopped" : "ended without stopping (killed?); last heard of"
            let why = status.connection == .stopped ? status.problem.map { " (\($0))" } ?? "" : ""
            lines.append(
                "sync worker: none running; the last one (pid \(status.pid)) \(how) \(Self.time(status.updatedAt))\(why); start one: \(hint.command("sync", "--live"))"
            )
        } else {
            lines.append(
                "sync worker: none running, and none has run here yet; start one: \(hint.command("sync", "--live"))")
        }
        if let unreadable { lines.append("figures: \(unreadable)") }
        var outbox = "outbox: \(pending) pending"
        if let age = oldestPendingAge { outbox += " (oldest \(Self.age(age)))" }
        outbox += ", \(failed) failed"
        if failed > 0 {
            outbox +=
                " (\(hint.command("view", "CONV")) shows them; \(hint.command("retry", "--all")) or \(hint.command("cancel", "--all-failed")))"
        }
        lines.append(outbox)
        let deliveries = status?.sendToSent ?? []
        if let p50 = Self.percentile(deliveries, 0.5), let p95 = Self.percentile(deliveries, 0.95) {
            lines.append(
                "send-to-sent: p50 \(Self.milliseconds(p50)), p95 \(Self.milliseconds(p95)) (last \(deliveries.count) deliver\(deliveries.count == 1 ? "y" : "ies"))"
            )
        } else {
            lines.append("send-to-sent: no deliveries measured yet")
        }
        if let p50 = Self.percentile(opens, 0.5) {
            lines.append("time to open: p50 \(Self.milliseconds(p50)) (last \(opens.count) open\(plural(opens.count)))")
        } else {
            lines.append("time to open: no opens measured yet")
        }
        if let runtimeRefused { lines.append("warning: " + runtimeRefused) }
        let width = conversations.map { $0.id.rawValue.count }.max() ?? 0
        for conversation in conversations {
            var line =
                "  " + conversation.id.rawValue + String(repeating: " ", count: width - conversation.id.rawValue.count)
                + "  "
            line += conversation.caughtUp.map { "caught up \(Self.time($0))" } ?? "no catch-up recorded"
            if conversation.pending > 0 { line += ", \(conversation.pending) pending" }
            if conversation.failed > 0 { line += ", \(conversation.failed) failed" }
            switch conversation.creation {
            case let creation? where creation.state == .failed:
                line +=
                    "; the server refused to create it: \(creation.error ?? "no reason given") (\(hint.command("create", "\(conversation.id.rawValue) --retry")) queues it again)"
            case .some:
                line += "; not on the server yet (created here, the next sync creates it there)"
            case nil:
                break
            }
            if let stopped = conversation.stopped { line += "; sync stopped: " + stopped }
            lines.append(line)
        }
        return lines
    }

    var json: JSONValue {
        func optional(_ value: Int?) -> JSONValue { value.map { .integer($0) } ?? .null }
        var worker: [(key: String, value: JSONValue)] = []
        if let current {
            worker = [
                ("connection", .string(current.connection.rawValue)),
                ("mode", .string(current.mode.rawValue)),
                ("pid", .integer(Int(current.pid))),
                ("problem", current.problem.map { .string($0) } ?? .null),
                ("reconnectsLastHour", .integer(reconnectsLastHour)),
                ("running", .bool(true)),
                ("since", .string(Self.iso(current.startedAt))),
            ]
        } else {
            worker = [
                ("lastPid", status.map { .integer(Int($0.pid)) } ?? .null),
                ("lastSeen", status.map { .string(Self.iso($0.updatedAt)) } ?? .null),
                ("pid", running.map { .integer(Int($0)) } ?? .null),
                ("running", .bool(running != nil)),
            ]
        }
        let deliveries = status?.sendToSent ?? []
        let rows: [JSONValue] = conversations.map { conversation in
            .object([
                ("caughtUpAt", conversation.caughtUp.map { .string(Self.iso($0)) } ?? .null),
                (
                    "creation",
                    conversation.creation.map { creation in
                        .object([
                            ("error", creation.error.map { .string($0) } ?? .null),
                            ("state", .string(creation.state.rawValue)),
                        ])
                    } ?? .null
                ),
                ("failed", .integer(conversation.failed)),
                ("id", .string(conversation.id.rawValue)),
                ("pending", .integer(conversation.pending)),
                ("stopped", conversation.stopped.map { .string($0) } ?? .null),
            ])
        }
        return .object([
            ("conversations", .array(rows)),
            ("healthy", .bool(problem(hint: .defaultStore) == nil)),
            (
                "outbox",
                .object([
                    ("failed", .integer(failed)),
                    ("oldestPendingAgeMs", optional(oldestPendingAge.map { Int($0) })),
                    ("pending", .integer(pending)),
                ])
            ),
            ("runtimeDirectoryRefused", runtimeRefused.map { .string($0) } ?? .null),
            (
                "sendToSentMs",
                .object([
                    ("count", .integer(deliveries.count)),
                    ("p50", optional(Self.percentile(deliveries, 0.5))),
                    ("p95", optional(Self.percentile(deliveries, 0.95))),
                ])
            ),
            (
                "timeToOpenMs",
                .object([
                    ("count", .integer(opens.count)),
                    ("p50", Self.percentile(opens, 0.5).map { .number($0) } ?? .null),
                ])
            ),
            ("worker", .object(worker)),
        ])
    }
}
