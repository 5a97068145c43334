import ChatDomain

/// Draws rows as text lines and JSON lines. Decides nothing: the rows already carry their ticks.
struct RowText {
    var output: Output
    var conversation: ConversationID
    var time = TimeText()
    /// How the retry hint of a failed row names the store.
    var hint = PasteHint.defaultStore

    /// The tick words after my messages. Plain text carries words, so a pipe tells read from delivered.
    func status(_ status: TimelineRow.Status, id: ClientMessageID) -> String? {
        switch status {
        case .incoming:
            return nil
        case .pending:
            return output.styled("◷ pending", .yellow)
        case let .failed(reason):
            let why = reason.map { ": " + output.safe($0) } ?? ""
            return output.styled("✗ failed\(why)", .red) + output.styled(" (retry: \(hint.command("retry", "\(conversation) \(id)")))", .dim)
        case .outgoing(.unknown):
            return output.styled("✓ receipts unknown", .dim)
        case .outgoing(.sent):
            return "✓ sent"
        case .outgoing(.delivered):
            return "✓✓ delivered"
        case .outgoing(.read):
            return output.styled("✓✓ read", .blue)
        }
    }

    /// `time  sender  text  tick`, senders padded to `senderWidth`; lines of a multi-line text
    /// after the first are indented under the text.
    func line(_ row: TimelineRow, senderWidth: Int, timeWidth: Int = 0) -> String {
        line(RowState(clientMessageID: row.clientMessageID, sequence: row.sequence, time: time.format(row.time),
                      senderID: row.senderID, text: row.text, status: row.status), senderWidth: senderWidth, timeWidth: timeWidth)
    }

    /// As ``line(_:senderWidth:)-(TimelineRow,_)``, for a row whose time the view model already formatted.
    /// `timeWidth` pads a shorter time on the left (today's `12:20` under `2026-11-28 09:00`),
    /// so the senders and texts of mixed rows start in one column.
    func line(_ row: RowState, senderWidth: Int, timeWidth: Int = 0) -> String {
        let time = TerminalSafe.visible(row.time)
        let padding = Self.spaces(timeWidth - time.count)
        let sender = TerminalSafe.visible(row.senderID.rawValue)
        let prefix = padding + output.safe(row.time) + "  " + output.styled(sender, .bold) + Self.spaces(senderWidth - sender.count) + "  "
        var text = output.safe(row.text)
        // A native string's bytes are searched in place (the generic walk of `utf8` cost a
        // few dozen instructions a byte, 3 % of `view`).
        if text.utf8.withContiguousStorageIfAvailable({ $0.contains(0x0A) }) ?? text.utf8.contains(0x0A) {
            let indent = Self.spaces((padding + time).count + 2 + senderWidth + 2)
            text = text.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n" + indent)
        }
        if let tick = status(row.status, id: row.clientMessageID) { text += "  " + tick }
        return prefix + text
    }

    /// `count` spaces (none when `count` is not positive), written as bytes: every row pads its
    /// time and sender, and `String(repeating:count:)` costs far more per call.
    static func spaces(_ count: Int) -> String {
        guard count > 0 else { return "" }
        return String(unsafeUninitializedCapacity: count) { buffer in
            buffer.initialize(repeating: UInt8(ascii: " "))
            return count
        }
    }

    /// The lines of `row` on a screen `width` columns wide: a line too wide is cut and ends
    /// with `…`; the last line keeps its tick whole, cutting the text before it instead (unless
    /// the tick alone is too wide to leave room).
    func screenLines(_ row: RowState, senderWidth: Int, timeWidth: Int = 0, width: Int) -> [String] {
        var untickedRow = row
        untickedRow.status = .incoming
        var lines = line(untickedRow, senderWidth: senderWidth, timeWidth: timeWidth).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let tick = status(row.status, id: row.clientMessageID).map { "  " + $0 } ?? ""
        for index in lines.indices {
            let suffix = index == lines.count - 1 ? tick : ""
            let suffixWidth = Terminal.visibleWidth(suffix)
            if Terminal.visibleWidth(lines[index]) + suffixWidth <= width {
                lines[index] += suffix
            } else if width - suffixWidth - 1 >= min(width / 2, 8) {
                lines[index] = Terminal.fit(lines[index], width: width - suffixWidth - 1) + "…" + suffix
            } else {
                lines[index] = Terminal.fit(lines[index] + suffix, width: max(0, width - 1)) + "…"
            }
        }
        return lines
    }

    /// The lines of `row` on a screen `width` cells wide with the text wrapped rather than cut
    /// (the chat screen): `time  sender  text`, the text wrapped on words by ``TextWrap`` with
    /// continuation lines indented under its first line, and the tick after the last line, or
    /// on lines of its own under the text when it does not fit there. Widths are cells
    /// (``TerminalCells``); senders are padded to `senderWidth` cells and times to `timeWidth`.
    /// Text from outside goes through ``Output/safe(_:)`` as in ``line(_:senderWidth:timeWidth:)-(RowState,_,_)``.
    /// No line is wider than `width` (a prefix wider than the screen is cut).
    func wrappedLines(_ row: RowState, senderWidth: Int, timeWidth: Int, width: Int) -> [String] {
        let time = TerminalSafe.visible(row.time)
        let sender = TerminalSafe.visible(row.senderID.rawValue)
        let prefix = String(repeating: " ", count: max(0, timeWidth - TerminalCells.width(time))) + output.safe(row.time) + "  "
            + output.styled(sender, .bold) + String(repeating: " ", count: max(0, senderWidth - TerminalCells.width(sender))) + "  "
        let indentWidth = Terminal.visibleWidth(prefix)
        let indent = String(repeating: " ", count: indentWidth)
        let textWidth = max(1, width - indentWidth)
        var text = TextWrap.lines(output.safe(row.text), width: textWidth)
        if let tick = status(row.status, id: row.clientMessageID) {
            let last = text.count - 1
            if Terminal.visibleWidth(text[last]) + 2 + Terminal.visibleWidth(tick) <= textWidth {
                text[last] += "  " + tick
            } else {
                text += TextWrap.lines(tick, width: textWidth)
            }
        }
        return text.enumerated().map { index, line in
            Terminal.fit((index == 0 ? prefix : indent) + line, width: width)
        }
    }

    func lines(_ rows: [TimelineRow]) -> [String] {
        let width = rows.map(\.senderID.rawValue.count).max() ?? 0
        let times = rows.map { time.format($0.time) }
        let timeWidth = times.map { TerminalSafe.visible($0).count }.max() ?? 0
        return zip(rows, times).map { row, formatted in
            line(RowState(clientMessageID: row.clientMessageID, sequence: row.sequence, time: formatted, senderID: row.senderID, text: row.text, status: row.status),
                 senderWidth: width, timeWidth: timeWidth)
        }
    }

    /// One JSON object per row, for `--json` (JSON Lines: one per line, `jq` reads the stream).
    static func json(_ row: TimelineRow, conversation: ConversationID, me: UserID) -> String {
        var members: [(key: String, value: JSONValue)] = [
            ("conversationId", .string(conversation.rawValue)),
            ("clientMessageId", .string(row.clientMessageID.rawValue)),
            ("sequence", row.sequence.map { .integer($0) } ?? .null),
            ("senderId", .string(row.senderID.rawValue)),
            ("mine", .bool(row.senderID == me)),
            ("time", .string(row.time)),
            ("text", .string(row.text)),
        ]
        switch row.status {
        case .incoming: members.append(("status", .string("incoming")))
        case .pending: members.append(("status", .string("pending")))
        case let .failed(reason):
            members.append(("status", .string("failed")))
            members.append(("error", reason.map { .string($0) } ?? .null))
        case let .outgoing(state): members.append(("status", .string(state.rawValue)))
        }
        return JSONLine.encode(.object(members))
    }
}
