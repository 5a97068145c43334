import ChatDomain
import ChatStore
import ChatSystem

/// `chatdir view`: the newest rows of a conversation, from the store only (never the network).
enum ViewCommand: Command {
    static let spec = CommandSpec(
        name: "view",
        summary: "Show a conversation's newest messages with ticks.",
        usage: ["CONV [--limit N] [--before SEQ] [--json]", "CONV --follow [--limit N] [--json]"],
        options: [
            .init(name: "--limit", value: "N", help: "how many messages (default 50)"),
            .init(name: "--before", value: "SEQ", help: "only messages with a sequence below SEQ (scroll back)"),
            .init(name: "--json", value: nil, help: "one JSON object per row (JSON Lines), for jq and scripts"),
            .init(
                name: "--mark-read", value: nil,
                help: "mark the conversation read up to the newest message shown (like `chatdir read`)"),
            .init(
                name: "--follow", value: nil, help: "keep running and show every change as it is written (Ctrl-C ends)"),
        ],
        discussion: """
            Rows are in the server's order (sequence); messages not accepted yet follow, oldest first.
            My messages carry a tick: ◷ pending, ✗ failed (with the retry command), ✓ sent,
            ✓✓ delivered (every other member has it), ✓✓ read (every other member read it),
            and a dimmed "receipts unknown" while positions were never loaded.
            On a terminal a title line and a status line frame the rows; in a pipe only rows are printed.
            Colour follows NO_COLOR. Times are local (TZ).

            With --follow on a terminal the screen is redrawn in place after every write to the
            conversation's files: newest rows at the bottom, ticks change where they stand, a status
            line counts pending and failed messages and says how the sync worker fares (connected,
            reconnecting with why and the seconds to its next try, or why the last one stopped), and
            a conversation the worker stopped on is named under the title. In a pipe,
            --follow prints each new or changed row once (as text, or JSON Lines with --json).
            Changes are seen through inotify. When the kernel refuses a watch (the per-user limit
            fs.inotify.max_user_watches, or max_user_instances, is reached) the folders it would not
            watch are checked every second instead: nothing is missed, and stderr and the status
            line say so once, with the setting to raise (`sysctl fs.inotify.max_user_watches=…`).

            Examples:
              chatdir view c1
              chatdir view c1 --before 401 --limit 20
              chatdir view c1 --json | jq -r 'select(.status == "failed") | .clientMessageId'
              chatdir view c1 --follow
              chatdir view c1 --follow --json | jq -r '.text'
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let id = try context.conversationID(try arguments.positional(0, "CONV (the conversation to show)"))
        let limit = try arguments.integer("--limit", in: 1...1_000_000) ?? 50
        let before = try arguments.integer("--before", in: 1...Int.max)
        let store = try context.openStore()
        if arguments.flag("--follow") {
            if before != nil {
                throw context.usage(
                    "--follow shows the newest messages and what comes after; it cannot be combined with --before")
            }
            return try follow(context, store: store, id: id, limit: limit)
        }
        let snapshot = try store.existingConversation(id).snapshot(limit: limit, before: before)
        // The newest `limit` rows in all: pending and failed ones count among them.
        let timeline = snapshot.rows(me: store.userID)
        let rows = Array(timeline.suffix(limit))
        let hasOlder = snapshot.hasOlder || rows.count < timeline.count
        // `--before` shows what is older than the oldest message on screen (or than every
        // message, when only outbox rows fit).
        let olderBefore = rows.first { $0.sequence != nil }?.sequence ?? snapshot.messages.last.map { $0.sequence + 1 }
        let output = context.output
        if arguments.flag("--mark-read"), let newest = snapshot.messages.last?.sequence {
            try Outbox(try store.existingConversation(id)).wantRead(upTo: newest)
        }
        defer { context.recordOpenSayingWhy(store: store) }
        // Every line in one write(2) (LineBuffer), not one per row.
        var out = LineBuffer()
        defer { out.flush() }
        if arguments.flag("--json") {
            for row in rows { out.append(RowText.json(row, conversation: id, me: store.userID)) }
            return 0
        }
        let text = RowText(output: output, conversation: id, hint: context.hint)
        if output.isTerminal {
            let title = snapshot.info?.title ?? id.rawValue
            let members = snapshot.members(me: store.userID).map(\.rawValue).joined(separator: ", ")
            out.append(
                output.styled(output.safe(title), .bold) + output.styled("  \(id) · " + output.safe(members), .dim))
            if hasOlder, let first = olderBefore {
                out.append(
                    output.styled("  older messages: " + context.hint.command("view", "\(id) --before \(first)"), .dim))
            }
        }
        text.appendLines(rows, to: &out)
        if output.isTerminal {
            if rows.isEmpty {
                out.append(output.styled("  no messages yet: " + context.hint.command("send", "\(id) TEXT"), .dim))
            }
            let pending = snapshot.outbox.filter { $0.state == .pending }.count
            let failed = snapshot.outbox.count - pending
            var status: [String] = []
            if pending > 0 { status.append("\(pending) pending") }
            if failed > 0 { status.append("\(failed) failed (\(context.hint.command("retry", "\(id) --all")))") }
            if snapshot.positions == nil { status.append("receipts not loaded yet") }
            if !status.isEmpty { out.append(output.styled("  " + status.joined(separator: " · "), .dim)) }
        }
        return 0
    }

    /// `--follow`: redraw on a terminal, or print new and changed rows to a pipe, until a signal.
    static func follow(_ context: Context, store: Store, id: ConversationID, limit: Int) throws -> Int32 {
        let states = try StoreObserver(store: store).states(in: id, limit: limit)
        let output = context.output
        let json = context.arguments.flag("--json")
        let redraw = output.isTerminal && !json
        let me = store.userID
        return try Follow.block {
            var model = ConversationViewModel(me: me)
            model.hint = context.hint
            if redraw {
                // Who is typing comes from the runtime channel, beside the store's states.
                let channel = RuntimeChannel(
                    storeRoot: store.root, runtimeDirectory: context.environment["XDG_RUNTIME_DIR"])
                let events = ChatSession.merge(
                    states: states, keys: nil, channel: ChatSession.watch(channel, id, create: false),
                    signals: Terminal.signals(resize: true))
                let terminal = Terminal()
                let screen = ConversationScreen(output: output, conversation: id, hint: context.hint)
                // Said on the status line, and on stderr at once or, when stderr is this
                // terminal, once the screen is put away.
                var polling = PollingWarning(command: "view", output: output, deferred: output.isTerminalError)
                terminal.enter()
                defer {
                    terminal.restore()
                    polling.finish()
                }
                var last: ConversationState?
                var typing: String?
                var opened = false
                var warning: String?
                for await event in events {
                    switch event {
                    case .state(let state):
                        polling.note(state.polling)
                        last = state
                    case .channel(let reason):
                        polling.note(reason)
                        fallthrough
                    case .tick:
                        let now = Int64(Clock.nanosecondsSince1970() / 1_000_000)
                        let line = TypingLine.text(channel.typing(id), me: me, now: now)
                        if line == typing, case .tick = event { continue }
                        typing = line
                    case .resize, .key:
                        break
                    case .stop, .ended:
                        return 0
                    }
                    guard let state = last else { continue }
                    let size = Terminal.size() ?? (rows: 24, columns: 80)
                    var view = model.viewState(polling.marked(state), visibleRows: size.rows)
                    view.typing = typing
                    if let warning { view.problems.append(warning) }
                    terminal.draw(screen.frame(view, rows: size.rows, columns: size.columns))
                    if !opened {
                        opened = true
                        warning = context.recordOpen(store: store)
                        if let warning {
                            view.problems.append(warning)
                            terminal.draw(screen.frame(view, rows: size.rows, columns: size.columns))
                        }
                    }
                }
                return 0
            }
            let events = Follow.merge(states, Terminal.signals(resize: false))
            var printer = RowPrinter(output: output, conversation: id, me: me, json: json, hint: context.hint)
            var polling = PollingWarning(command: "view", output: output)
            var opened = false
            for await event in events {
                switch event {
                case .value(let state):
                    polling.note(state.polling)
                    printer.print(state)
                    if !opened {
                        opened = true
                        context.recordOpenSayingWhy(store: store)
                    }
                case .signal(.resize): continue
                case .signal(.stop), .ended: return 0
                }
            }
            return 0
        }
    }
}
