import ChatDomain
import ChatStore

/// `chatdir list`: every conversation, newest activity first.
enum ListCommand: Command {
    static let spec = CommandSpec(
        name: "list",
        summary: "List conversations, newest activity first, with unread, pending and failed counts.",
        usage: ["[--json] [--follow]"],
        options: [
            .init(name: "--json", value: nil, help: "one JSON object per conversation (JSON Lines)"),
            .init(
                name: "--follow", value: nil,
                help: "keep running: redraw on a terminal, or print each changed conversation's line to a pipe"),
        ],
        discussion: """
            Unread counts others' messages past my read position (shown as 999+ past 999).
            A conversation whose files are damaged is listed with the error; the others still show.
            One the sync worker stopped on (a damaged file it could not read or write, an answer that
            breaks the contract) says "sync stopped" and why, until it syncs again ("stopped" in --json).
            One made here with `create` says "not on the server yet" until a sync creates it there,
            or that the server refused (`create ID --retry` queues it again); in --json, "creation"
            is "pending" or "failed", and absent otherwise.
            In a Matrix store, the rooms I am invited to follow, as the last sync found them, each
            with the command that joins it (`invited to "Picnic" (!abc:example.org) by
            @bob:example.org; join: chatdir join '!abc:example.org'`); in --json, a line
            {"invitation":{"inviter":…,"name":…,"room":…}} each. --follow shows them too, as the
            running sync worker finds them (into a pipe, each new one once).

            With --follow, changes are seen through inotify; when the kernel's per-user inotify limits
            are reached (fs.inotify.max_user_watches, max_user_instances), the store's folders are
            checked every second instead, and stderr (and a line under the list) says so once.
            On a terminal, a status line under the list says how the sync worker fares, as
            `chatdir status` does (connected, reconnecting and why, or why the last one stopped).
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(0)
        let store = try context.openStore()
        if arguments.flag("--follow") { return try follow(context, store: store) }
        let summaries = try store.conversationIDs().map { store.conversation($0).summary(me: store.userID) }
            .sorted(by: ConversationSummary.listOrder)
        let output = context.output
        let stopped = (try? SyncStatusFile.read(storeRoot: store.root)?.get())?.stoppedConversations ?? [:]
        // Every line in one write(2) (LineBuffer), not one per conversation.
        var out = LineBuffer()
        defer { out.flush() }
        let invitations = InvitationsFile.read(storeRoot: store.root)
        if arguments.flag("--json") {
            for summary in summaries { out.append(json(summary, stopped: stopped[summary.id])) }
            for invitation in invitations { out.append(json(invitation)) }
            return summaries.contains { $0.problem != nil } ? 65 : 0
        }
        for line in lines(summaries, stopped: stopped, output: output) { out.append(line) }
        for invitation in invitations {
            out.append(output.safe(invitation.described(joining: context.hint)))
        }
        if summaries.isEmpty && invitations.isEmpty && output.isTerminal {
            out.append(
                output.styled("no conversations yet: `chatdir sync` fetches them, `chatdir seed` makes a fixture", .dim)
            )
        }
        return summaries.contains { $0.problem != nil } ? 65 : 0
    }

    /// One conversation as a JSON object (one line of `--json`).
    static func json(_ summary: ConversationSummary, stopped: String?) -> String {
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(summary.id.rawValue)), ("title", .string(summary.title)),
            ("unread", .integer(summary.unread)),
            ("unreadAtLeast", .bool(summary.unread >= ConversationSummary.unreadCap)),
            ("pending", .integer(summary.pending)), ("failed", .integer(summary.failed)),
        ]
        // Only for a conversation created here that the server does not have yet.
        if let creation = summary.creation { members.append(("creation", .string(creation.rawValue))) }
        // Only in a Matrix store, for a room chatdir cannot read: wire v1 keeps its keys.
        if summary.encrypted { members.append(("encrypted", .bool(true))) }
        if let last = summary.last {
            var message: [(key: String, value: JSONValue)] = [
                ("sequence", .integer(last.sequence)), ("senderId", .string(last.senderID.rawValue)),
                ("sentAt", .string(last.sentAt)), ("text", .string(last.text)),
            ]
            // As in `view --json`'s rows: only in a Matrix store, so wire v1 keeps its keys.
            if let kind = last.kind { message.append(("kind", .string(kind.rawValue))) }
            if summary.lastEdited { message.append(("edited", .bool(true))) }
            if last.redacted { message.append(("redacted", .bool(true))) }
            members.append(("lastMessage", .object(message)))
        }
        if let problem = summary.problem { members.append(("error", .string(problem))) }
        if let stopped { members.append(("stopped", .string(stopped))) }
        return JSONLine.encode(.object(members))
    }

    /// An invitation as a line of `--json`: one key, so no conversation's keys are met.
    static func json(_ invitation: Invitation) -> String {
        var members: [(key: String, value: JSONValue)] = []
        if let inviter = invitation.inviter { members.append(("inviter", .string(inviter))) }
        if let name = invitation.name { members.append(("name", .string(name))) }
        members.append(("room", .string(invitation.room)))
        return JSONLine.encode(.object([("invitation", .object(members))]))
    }

    /// The text lines of the list, IDs padded to one width; `stopped` says why the sync worker
    /// stopped on a conversation.
    static func lines(_ summaries: [ConversationSummary], stopped: [ConversationID: String], output: Output) -> [String]
    {
        let time = TimeText()
        let idWidth = summaries.map(\.id.rawValue.count).max() ?? 0
        return summaries.map { summary in
            var line =
                summary.id.rawValue + String(repeating: " ", count: idWidth - summary.id.rawValue.count) + "  "
                + output.styled(output.safe(summary.title), .bold)
            if let problem = summary.problem {
                return line + "  " + output.styled("damaged: " + output.safe(problem), .red)
            }
            var counts: [String] = []
            if summary.unread > 0 {
                counts.append(
                    summary.unread >= ConversationSummary.unreadCap ? "999+ unread" : "\(summary.unread) unread")
            }
            if summary.pending > 0 { counts.append("\(summary.pending) pending") }
            if summary.failed > 0 { counts.append(output.styled("\(summary.failed) failed", .red)) }
            if summary.encrypted { counts.append(output.styled("end-to-end encrypted, not supported", .dim)) }
            switch summary.creation {
            case .pending?: counts.append("not on the server yet")
            case .failed?: counts.append(output.styled("the server refused to create it", .red))
            case nil: break
            }
            // Joined by hand: `joined(separator:)` is not specialized for [String], and its
            // first call looks up an associated type by scanning every conformance record.
            for (index, count) in counts.enumerated() { line += (index == 0 ? "  (" : ", ") + count }
            if !counts.isEmpty { line += ")" }
            if let why = stopped[summary.id] { line += "  " + output.styled("sync stopped: " + output.safe(why), .red) }
            if let last = summary.last {
                let shown = TimelineRow.shownText(
                    last.text, kind: last.kind, redacted: last.redacted, edited: summary.lastEdited)
                let preview = shown.split(separator: "\n").first.map(String.init) ?? ""
                line +=
                    "  " + output.styled(output.safe(time.format(last.sentAt)), .dim) + " "
                    + output.safe(last.senderID.rawValue) + ": "
                    + output.safe(String(preview.prefix(60))) + (preview.count > 60 ? "…" : "")
            }
            return line
        }
    }

    /// `--follow`: the list redrawn on a terminal; in a pipe, each conversation's line again
    /// whenever it changed (JSON Lines with --json).
    static func follow(_ context: Context, store: Store) throws -> Int32 {
        let lists = try StoreObserver(store: store).summaries()
        let output = context.output
        let json = context.arguments.flag("--json")
        let redraw = output.isTerminal && !json
        return try Follow.block {
            let events = Follow.merge(lists, Terminal.signals(resize: redraw))
            let terminal = Terminal()
            // Said on stderr (once the screen is put away, when stderr is the same terminal)
            // and, on the screen, on a status line under the list.
            var polling = PollingWarning(command: "list", output: output, deferred: redraw && output.isTerminalError)
            if redraw { terminal.enter() }
            defer {
                terminal.restore()
                polling.finish()
            }
            var last: [ConversationSummary] = []
            var invitations: [Invitation] = []
            var printedInvitations: Set<Invitation> = []
            var printed: [ConversationID: ConversationSummary] = [:]
            var printedStopped: [ConversationID: String] = [:]
            var worker = SyncWorkerState()
            for await event in events {
                switch event {
                case .value(let list):
                    last = list.conversations
                    invitations = list.invitations
                    worker = list.worker
                    polling.note(list.polling)
                case .signal(.resize): break
                case .signal(.stop), .ended: return 0
                }
                if redraw {
                    let size = Terminal.size() ?? (rows: 24, columns: 80)
                    var frame = lines(last, stopped: stoppedNow(worker), output: output)
                    frame += invitations.map { output.safe($0.described(joining: context.hint)) }
                    if frame.isEmpty { frame = [output.styled("no conversations yet", .dim)] }
                    // The status line: how the sync worker fares, after why changes are polled for.
                    let pending = last.reduce(0) { $0 + $1.pending }
                    let status =
                        (polling.reason.map { [$0.summary] } ?? []) + [
                            SyncWorkerText.summary(pid: worker.pid, worker, pending: pending)
                        ]
                    frame =
                        Array(frame.prefix(max(0, size.rows - 1))) + [
                            output.styled("  " + output.safe(status.joined(separator: " · ")), .dim)
                        ]
                    terminal.draw(frame.prefix(size.rows).map { Terminal.fit($0, width: size.columns) })
                    continue
                }
                let stopped = stoppedNow(worker)
                let changed = last.filter { printed[$0.id] != $0 || printedStopped[$0.id] != stopped[$0.id] }
                for summary in changed {
                    printed[summary.id] = summary
                    printedStopped[summary.id] = stopped[summary.id]
                }
                let newInvitations = invitations.filter { !printedInvitations.contains($0) }
                printedInvitations.formUnion(newInvitations)
                let text =
                    json
                    ? changed.map { Self.json($0, stopped: stopped[$0.id]) } + newInvitations.map(Self.json)
                    : lines(changed, stopped: stopped, output: output)
                        + newInvitations.map { output.safe($0.described(joining: context.hint)) }
                if !text.isEmpty { Output.write(1, text.joined(separator: "\n") + "\n") }
            }
            return 0
        }
    }

    /// The conversations the sync worker stopped on, as its status file says.
    private static func stoppedNow(_ worker: SyncWorkerState) -> [ConversationID: String] {
        worker.status?.stoppedConversations ?? [:]
    }
}
