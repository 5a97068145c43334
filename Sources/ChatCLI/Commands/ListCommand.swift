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

    /// What a line of the list shows for one conversation.
    struct Summary {
        var id: ConversationID
        var title: String
        var last: Message?
        var unread: Int
        var pending: Int
        var failed: Int
        var activity: String
        var problem: String?
    }

    static let unreadCap = 1000

    static func summary(of conversation: Conversation, me: UserID) -> Summary {
        var summary = Summary(id: conversation.id, title: conversation.id.rawValue, last: nil, unread: 0, pending: 0, failed: 0, activity: "", problem: nil)
        do {
            summary.title = try conversation.info()?.title ?? conversation.id.rawValue
            let outbox = try conversation.outbox()
            summary.pending = outbox.filter { $0.state == .pending }.count
            summary.failed = outbox.count - summary.pending
            let readUpTo = max(try conversation.positions()?[me].readUpTo ?? 0, try conversation.wantedReadPosition() ?? 0)
            var ranges = try conversation.segmentRanges()
            while let range = ranges.popLast(), range.last > readUpTo, summary.unread < unreadCap {
                let messages = try conversation.readSegment(range)
                if summary.last == nil { summary.last = messages.last }
                summary.unread += messages.filter { $0.sequence > readUpTo && $0.senderID != me }.count
            }
            if summary.last == nil, let range = try conversation.segmentRanges().last {
                summary.last = try conversation.readSegment(range).last
            }
            summary.activity = max(summary.last?.sentAt ?? "", outbox.map(\.createdAt).max() ?? "")
        } catch {
            summary.problem = error.description
        }
        return summary
    }

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(0)
        let store = try context.openStore()
        let summaries = try store.conversationIDs().map { summary(of: store.conversation($0), me: store.userID) }
            .sorted { ($0.activity, $1.id) > ($1.activity, $0.id) }
        let output = context.output
        if arguments.flag("--json") {
            for summary in summaries {
                var members: [(key: String, value: JSONValue)] = [
                    ("id", .string(summary.id.rawValue)), ("title", .string(summary.title)),
                    ("unread", .integer(summary.unread)), ("unreadAtLeast", .bool(summary.unread >= unreadCap)),
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
            if summary.unread > 0 { counts.append(summary.unread >= unreadCap ? "999+ unread" : "\(summary.unread) unread") }
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
