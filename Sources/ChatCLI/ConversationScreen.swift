import ChatDomain

/// Lays out one frame of `view --follow` on a terminal: title, history hint, the newest rows
/// at the bottom, the status line last. Every line fits the width, so rows never wrap and a
/// tick that changes is redrawn where it stands. "beginning of the conversation" stands only
/// above sequence 1 (or nothing) with every row in view, as on the chat screen.
struct ConversationScreen {
    var output: Output
    var conversation: ConversationID
    /// How the hints on screen name the store.
    var hint = PasteHint.defaultStore

    func frame(_ view: ConversationViewState, rows height: Int, columns width: Int) -> [String] {
        var header = [
            output.styled(output.safe(view.title), .bold) + output.styled("  " + output.safe(view.subtitle), .dim), "",
        ]
        for problem in view.problems.prefix(3) { header.append(output.styled("  " + output.safe(problem), .red)) }
        var footer = [output.styled("  " + output.safe(view.status), .dim)]
        if let typing = view.typing { footer.insert(output.styled("  " + output.safe(typing), .dim), at: 0) }
        if view.rows.isEmpty {
            footer.insert(
                output.styled("  no messages yet: " + hint.command("send", "\(conversation) TEXT"), .dim), at: 0)
        }
        let body = max(0, height - header.count - footer.count)
        let text = RowText(output: output, conversation: conversation, hint: hint)
        let senderWidth = view.rows.map(\.senderID.rawValue.count).max() ?? 0
        let timeWidth = view.rows.map { TerminalSafe.visible($0.time).count }.max() ?? 0
        var lines: [String] = []
        // The rows wholly in view, newest last: the oldest of them decides the history line.
        var whole: [RowState] = []
        for row in view.rows.reversed() where lines.count < body {
            let rowLines = text.screenLines(row, senderWidth: senderWidth, timeWidth: timeWidth, width: width)
            lines.insert(contentsOf: rowLines, at: 0)
            if lines.count <= body { whole.insert(row, at: 0) }
        }
        if lines.count > body { lines.removeFirst(lines.count - body) }
        let everyRow = whole.count == view.rows.count && view.rows.count == view.totalRows
        header[1] = output.styled(
            "  "
                + historyLine(
                    view.history, everyRowInView: everyRow, firstInView: whole.first { $0.sequence != nil }?.sequence),
            .dim)
        let padding = [String](repeating: "", count: body - lines.count)
        return (header + padding + lines + footer).prefix(max(1, height)).map { Terminal.fit($0, width: width) }
    }

    /// What is above the first row in view: how to see older rows, or the beginning.
    func historyLine(_ history: HistoryState, everyRowInView: Bool, firstInView: Int?) -> String {
        let older = { (before: Int?) in
            "older messages: " + hint.command("view", "\(conversation)" + (before.map { " --before \($0)" } ?? ""))
        }
        if !everyRowInView { return older(firstInView) }
        switch history {
        case .olderStored(let before): return older(before)
        case .olderOnServer: return "older messages are on the server: " + hint.command("history", "\(conversation)")
        case .complete: return "beginning of the conversation"
        }
    }
}
