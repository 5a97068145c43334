import ChatDomain
import ChatStore

/// `view --follow` into a pipe: prints each row the first time it is seen and again only when
/// it changes (a tick moved, a pending message was accepted), in the order of the rows.
struct RowPrinter {
    var output: Output
    var conversation: ConversationID
    var me: UserID
    var json: Bool
    /// How the retry hint of a failed row names the store.
    var hint: PasteHint
    private var printed: [ClientMessageID: TimelineRow] = [:]

    init(output: Output, conversation: ConversationID, me: UserID, json: Bool, hint: PasteHint = .defaultStore) {
        self.output = output
        self.hint = hint
        self.conversation = conversation
        self.me = me
        self.json = json
    }

    /// The lines for what changed since the last state, and remembers them as printed.
    mutating func lines(for state: ConversationState) -> [String] {
        let text = RowText(output: output, conversation: conversation, hint: hint)
        let senderWidth = state.members.map(\.rawValue.count).max() ?? 0
        var lines: [String] = []
        for row in state.rows where printed[row.clientMessageID] != row {
            printed[row.clientMessageID] = row
            lines.append(
                json ? RowText.json(row, conversation: conversation, me: me) : text.line(row, senderWidth: senderWidth))
        }
        if printed.count > state.rows.count + 1000 {
            let current = Set(state.rows.map(\.clientMessageID))
            printed = printed.filter { current.contains($0.key) }
        }
        return lines
    }

    mutating func print(_ state: ConversationState) {
        let lines = lines(for: state)
        if !lines.isEmpty { Output.write(1, lines.joined(separator: "\n") + "\n") }
    }
}
