import ChatDomain
import ChatStore

/// `chatdir list`: every conversation, newest activity first.
enum ListCommand: Command {
    static let spec = CommandSpec(
        name: "list",
        summary: "List conversations, newest activity first, with unread, pending and failed counts.",
        usage: ["[--json]"],
        options: [
            .init(name: "--json", value: nil, help: "one JSON object per conversation (JSON Lines)"),
        ],
        discussion: """
        Unread counts others' messages past my read position (shown as 999+ past 999).
        A conversation whose files are damaged is listed with the error; the others still show.
        """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(0)
        let store = try context.openStore()
        let summaries = try store.conversationIDs().map { store.conversation($0).summary(me: store.userID) }
            .sorted(by: ConversationSummary.listOrder)
        let output = context.output
        if arguments.flag("--json") {
            for summary in summaries {
                var members: [(key: String, value: JSONValue)] = [
                    ("id", .string(summary.id.rawValue)), ("title", .string(summary.title)),
                    ("unread", .integer(summary.unread)), ("unreadAtLeast", .bool(summary.unread >= ConversationSummary.unreadCap)),
                    ("pending", .integer(summary.pending)), ("failed", .integer(summary.failed)),
                ]
                if let last = summary.last {
                    members.append(("lastMessage", .object([
                        ("sequence", .integer(last.sequence)), ("senderId", .string(last.senderID.rawValue)),
                        ("sentAt", .string(last.sentAt)), ("text", .string(last.text)),
                    ])))
                }
                if let problem = summary.problem { members.append(("error", .string(problem))) }
                output.print(String(decoding: JSONWriter.encode(.object(members)), as: UTF8.self))
            }
            return summaries.contains { $0.problem != nil } ? 65 : 0
        }
        let time = TimeText()
        let idWidth = summaries.map(\.id.rawValue.count).max() ?? 0
        for summary in summaries {
            var line = summary.id.rawValue + String(repeating: " ", count: idWidth - summary.id.rawValue.count) + "  " + output.styled(summary.title, .bold)
            if let problem = summary.problem {
                output.print(line + "  " + output.styled("damaged: \(problem)", .red))
                continue
            }
            var counts: [String] = []
            if summary.unread > 0 { counts.append(summary.unread >= ConversationSummary.unreadCap ? "999+ unread" : "\(summary.unread) unread") }
            if summary.pending > 0 { counts.append("\(summary.pending) pending") }
            if summary.failed > 0 { counts.append(output.styled("\(summary.failed) failed", .red)) }
            if !counts.isEmpty { line += "  (" + counts.joined(separator: ", ") + ")" }
            if let last = summary.last {
                let preview = last.text.split(separator: "\n").first.map(String.init) ?? ""
                line += "  " + output.styled(time.format(last.sentAt), .dim) + " " + last.senderID.rawValue + ": " + String(preview.prefix(60)) + (preview.count > 60 ? "…" : "")
            }
            output.print(line)
        }
        if summaries.isEmpty && output.isTerminal {
            output.print(output.styled("no conversations yet: `chatdir sync` fetches them, `chatdir seed` makes a fixture", .dim))
        }
        return summaries.contains { $0.problem != nil } ? 65 : 0
    }
}
