import ChatDomain
import ChatStore

/// Where each line of the chat screen goes: title, history line and problems at the top, the
/// rows (newest at the bottom), then the typing line, the receipts panel, the status line and
/// the input. Everything here reads the model; nothing changes it.
extension ChatScreenModel {
    /// One line of the body: which row it belongs to, and whether it is that row's last.
    struct BodyLine {
        var row: Int
        var text: String
        var isLast: Bool
        /// The row's first line (its unread marker, when it has one, comes before).
        var isFirst = false
    }

    /// The frame to draw with `output`'s colours: every line fits the width, and the cursor
    /// stands in the input where the next character goes.
    func frame(_ output: Output) -> ChatFrame {
        let layout = Layout(self, output: output)
        let text = RowText(output: output, conversation: conversation, hint: hint)
        let view = window(text: text, height: layout.bodyHeight)
        var header = layout.header
        // Said only while the first row's top is in view: rows above it are not the beginning.
        if !(view.top.row == 0 && view.top.line == 0) {
            header[1] = output.styled("  " + historyLine(output, topInView: false), .dim)
        }
        var body = view.lines.map { line in
            selected.flatMap { indexByID[$0] } == line.row
                ? highlighted(line.text, first: line.isFirst, output: output) : line.text
        }
        body.insert(contentsOf: [String](repeating: "", count: max(0, layout.bodyHeight - body.count)), at: 0)
        var lines = header + body + layout.footer
        var cursorRow = layout.header.count + layout.bodyHeight + layout.inputStart + layout.input.cursorLine
        if lines.count > rows {
            let dropped = lines.count - rows
            lines.removeFirst(dropped)
            cursorRow -= dropped
        }
        return ChatFrame(
            lines: lines.map { Terminal.fit($0, width: columns) },
            cursorRow: max(0, cursorRow), cursorColumn: min(layout.input.cursorColumn, max(0, columns - 1)))
    }

    /// The lines of the frame but the body, and how many lines the body gets.
    struct Layout {
        var header: [String]
        var footer: [String]
        var input: (lines: [String], cursorLine: Int, cursorColumn: Int)
        /// Index in ``footer`` of the first input line.
        var inputStart: Int
        var bodyHeight: Int

        init(_ model: ChatScreenModel, output: Output) {
            let dim = { (text: String) in output.styled(text, .dim) }
            let view = model.state.map { model.viewModelState($0) }
            header = [
                output.styled(output.safe(view?.title ?? model.conversation.rawValue), .bold)
                    + dim("  " + output.safe(view?.subtitle ?? model.conversation.rawValue))
            ]
            header.append(dim("  " + model.historyLine(output)))
            for problem in (view?.problems ?? []).prefix(3) {
                header.append(output.styled("  " + output.safe(problem), .red))
            }
            footer = []
            if let typing = model.typingLine { footer.append(dim("  " + output.safe(typing))) }
            footer += model.panelLines(output)
            if let notice = model.notice { footer.append(output.styled("  " + output.safe(notice), .red)) }
            footer.append(dim("  " + output.safe(view?.status ?? "")))
            inputStart = footer.count
            input = model.inputLines(output)
            footer += input.lines
            bodyHeight = max(0, model.rows - header.count - footer.count)
        }
    }

    func viewModelState(_ state: ConversationState) -> ConversationViewState {
        viewModel.viewState(state, visibleRows: 0)
    }

    /// The body's height as the frame lays it out.
    var bodyHeight: Int { Layout(self, output: layoutOutput).bodyHeight }

    var layoutText: RowText { RowText(output: layoutOutput, conversation: conversation, hint: hint) }

    /// The lines in view, top to bottom, and the first one's row and line within it.
    func window(text: RowText, height: Int) -> (lines: [BodyLine], top: (row: Int, line: Int)) {
        guard height > 0, !timeline.isEmpty else { return ([], (0, 0)) }
        var lines: [BodyLine] = []
        if let anchor, let start = indexByID[anchor.row] {
            var index = start
            var skip = anchor.line
            while lines.count < height, index < timeline.count {
                let rowLines = self.lines(of: index, text: text)
                for (offset, line) in rowLines.enumerated() where offset >= skip && lines.count < height {
                    lines.append(
                        BodyLine(row: index, text: line, isLast: offset == rowLines.count - 1, isFirst: offset == 0))
                }
                skip = 0
                index += 1
            }
            return (lines, (start, anchor.line))
        }
        var index = timeline.count - 1
        while lines.count < height, index >= 0 {
            let rowLines = self.lines(of: index, text: text)
            lines.insert(
                contentsOf: rowLines.enumerated().map {
                    BodyLine(row: index, text: $1, isLast: $0 == rowLines.count - 1, isFirst: $0 == 0)
                }, at: 0)
            index -= 1
        }
        let dropped = max(0, lines.count - height)
        lines.removeFirst(dropped)
        return (lines, (index + 1, dropped))
    }

    /// How many lines row `index` takes at the current width (its unread marker included).
    func lineCount(_ index: Int) -> Int {
        max(1, lines(of: index, text: layoutText).count)
    }

    /// Row `index` as lines of the body: the unread marker first when it stands above this row.
    func lines(of index: Int, text: RowText) -> [String] {
        var lines = rowLines(text, rowStates[index])
        if index == markerIndex {
            let words = "── \(unreadCount) new "
            let marker = words + String(repeating: "─", count: max(2, columns - Self.cells(words)))
            lines.insert(text.output.styled(marker, .yellow), at: 0)
        }
        return lines
    }

    /// The one place rows become lines: wrapped on words to the width, the tick on the last line.
    private func rowLines(_ text: RowText, _ row: RowState) -> [String] {
        let key = RowLineCache.Key(
            row: row, senderWidth: senderWidth, timeWidth: timeWidth, width: columns, color: text.output.useColor,
            hint: text.hint)
        return lineCache.lines(key) {
            text.wrappedLines(row, senderWidth: senderWidth, timeWidth: timeWidth, width: columns)
        }
    }

    /// How many terminal cells `text` takes: the one place to count them.
    static func cells(_ text: String) -> Int { Terminal.visibleWidth(text) }

    /// A selected row: reverse video with colour, else its first line marked with `» ` in
    /// front and the lines it wraps onto with `│ `.
    private func highlighted(_ line: String, first: Bool, output: Output) -> String {
        guard output.useColor else { return (first ? "» " : "│ ") + line }
        return "\u{1B}[7m" + line.replacing("\u{1B}[0m", with: "\u{1B}[0;7m") + "\u{1B}[0m"
    }

    // MARK: The lines around the body

    /// The line under the title: what is above the first row, and what is being done about it.
    /// With `topInView` false (the view scrolled below the first row) rows above are older.
    func historyLine(_ output: Output, topInView: Bool = true) -> String {
        if loadingStored { return "loading older…" }
        if hasOlderStored || !topInView { return "↑ older messages" }
        guard let first = firstSequence, first > 1 else { return "beginning of the conversation" }
        guard wished == first else { return "↑ older messages" }
        switch answer {
        case .beginning(let before)? where before == first:
            return "beginning of the conversation"
        case .failed(let before, let reason)? where before == first:
            return "older messages could not be loaded: " + output.safe(reason)
        default:
            return (workerRunning ?? (state?.syncWorker != nil))
                ? "loading older…" : "no sync worker running: `\(hint.command("sync", "--live"))` loads older messages"
        }
    }

    /// `bob is typing…`, `bob and carol are typing…`, `3 people are typing…`; nil when no one is.
    var typingLine: String? { TypingLine.text(typing, me: me, now: now) }

    /// The receipts panel of the selected row, when `i` opened it.
    func panelLines(_ output: Output) -> [String] {
        guard showsReceipts, let id = selected, let index = indexByID[id] else { return [] }
        let row = timeline[index]
        guard let sequence = row.sequence else { return [] }
        guard let positions = state?.positions else {
            return [output.styled("  receipts of \(sequence): not loaded yet (the sync worker loads them)", .dim)]
        }
        let receipts = MessageReceipts(
            sequence: sequence, sender: row.senderID, members: state?.members ?? [], positions: positions)
        var lines =
            ["  receipts of \(sequence): " + receipts.summary + output.styled("  (Esc closes)", .dim)]
            + receipts.memberLines(safe: output.safe).map { "    " + $0 }
        let limit = max(2, rows / 3)
        if lines.count > limit {
            let hidden = lines.count - (limit - 1)
            lines =
                Array(lines.prefix(limit - 1)) + [
                    output.styled(
                        "    … \(hidden) more: " + hint.command("receipts", "\(conversation) \(sequence)"), .dim)
                ]
        }
        return lines
    }

    /// The input: a prompt and up to ``inputLines`` lines of the text, scrolled to the cursor
    /// (sideways too, when its line is wider than the screen), and the cursor's place in them.
    func inputLines(_ output: Output) -> (lines: [String], cursorLine: Int, cursorColumn: Int) {
        let (textLines, cursorLine, cursorOffset) = editor.lines
        let first = max(0, cursorLine - (Self.inputLines - 1))
        let last = min(textLines.count, first + Self.inputLines)
        var lines: [String] = []
        var cursorColumn = 0
        for lineIndex in first..<last {
            let prompt = lineIndex == 0 ? "> " : "  "
            let available = max(1, columns - Self.cells(prompt))
            let shown = textLines[lineIndex].map(Self.display)
            var start = 0
            if lineIndex == cursorLine {
                // Linear, not quadratic: a long paste on one line must not stall a key press.
                var before = shown[..<cursorOffset].reduce(0) { $0 + Self.cells($1) }
                while start < cursorOffset, before >= available {
                    before -= Self.cells(shown[start])
                    start += 1
                }
                cursorColumn = Self.cells(prompt) + before
            }
            var visible = ""
            var width = 0
            for piece in shown[start...] {
                width += Self.cells(piece)
                if width > available { break }
                visible += piece
            }
            lines.append(output.styled(prompt, .bold) + visible)
        }
        return (lines, cursorLine - first, cursorColumn)
    }

    /// A character of the input as drawn: controls as visible notation, a tab as a space.
    private static func display(_ character: Character) -> String {
        character == "\t" ? " " : TerminalSafe.visible(String(character))
    }
}
