import ChatDomain
import ChatStore

/// `chatdir view`: the newest rows of a conversation, from the store only (never the network).
enum ViewCommand: Command {
    static let spec = CommandSpec(
        name: "view",
        summary: "Show a conversation's newest messages with ticks.",
        usage: ["CONV [--limit N] [--before SEQ] [--json]"],
        options: [
            .init(name: "--limit", value: "N", help: "how many messages (default 50)"),
            .init(name: "--before", value: "SEQ", help: "only messages with a sequence below SEQ (scroll back)"),
            .init(name: "--json", value: nil, help: "one JSON object per row (JSON Lines), for jq and scripts"),
            .init(name: "--mark-read", value: nil, help: "mark the conversation read up to the newest message shown (like `chatdir read`)"),
        ],
        discussion: """
        Rows are in the server's order (sequence); messages not accepted yet follow, oldest first.
        My messages carry a tick: ◷ pending, ✗ failed (with the retry command), ✓ sent,
        ✓✓ delivered (every other member has it), ✓✓ read (every other member read it),
        and a dimmed "receipts unknown" while positions were never loaded.
        On a terminal a title line and a status line frame the rows; in a pipe only rows are printed.
        Colour follows NO_COLOR. Times are local (TZ).

        Examples:
          chatdir view c1
          chatdir view c1 --before 401 --limit 20
          chatdir view c1 --json | jq -r 'select(.status == "failed") | .clientMessageId'
        """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let id = try context.conversationID(try arguments.positional(0, "CONV (the conversation to show)"))
        let limit = try arguments.integer("--limit", in: 1...1_000_000) ?? 50
        let before = try arguments.integer("--before", in: 1...Int.max)
        let store = try context.openStore()
        let snapshot = try store.existingConversation(id).snapshot(limit: limit, before: before)
        let rows = snapshot.rows(me: store.userID)
        let output = context.output
        if arguments.flag("--mark-read"), let newest = snapshot.messages.last?.sequence {
            try Outbox(try store.existingConversation(id)).wantRead(upTo: newest)
        }
        if arguments.flag("--json") {
            for row in rows { output.print(RowText.json(row, conversation: id, me: store.userID)) }
            return 0
        }
        let text = RowText(output: output, conversation: id)
        if output.isTerminal {
            let title = snapshot.info?.title ?? id.rawValue
            let members = snapshot.members(me: store.userID).map(\.rawValue).joined(separator: ", ")
            output.print(output.styled(title, .bold) + output.styled("  \(id) · \(members)", .dim))
            if snapshot.hasOlder, let first = rows.first?.sequence {
                output.print(output.styled("  older messages: chatdir view \(id) --before \(first)", .dim))
            }
        }
        for line in text.lines(rows) { output.print(line) }
        if output.isTerminal {
            if rows.isEmpty { output.print(output.styled("  no messages yet: chatdir send \(id) TEXT", .dim)) }
            let pending = snapshot.outbox.filter { $0.state == .pending }.count
            let failed = snapshot.outbox.count - pending
            var status: [String] = []
            if pending > 0 { status.append("\(pending) pending") }
            if failed > 0 { status.append("\(failed) failed (chatdir retry \(id) --all)") }
            if snapshot.positions == nil { status.append("receipts not loaded yet") }
            if !status.isEmpty { output.print(output.styled("  " + status.joined(separator: " · "), .dim)) }
        }
        return 0
    }
}
