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
        case .failed(let reason):
            let why = reason.map { ": " + output.safe($0) } ?? ""
            return output.styled("✗ failed\(why)", .red)
                + output.styled(" (retry: \(hint.command("retry", "\(conversation) \(id)")))", .dim)
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
        line(
            RowState(
                clientMessageID: row.clientMessageID, sequence: row.sequence, time: time.format(row.time),
                senderID: row.senderID, text: row.shownText, status: row.status, redacted: row.redacted),
            senderWidth: senderWidth,
            timeWidth: timeWidth)
    }

    /// As ``line(_:senderWidth:)-(TimelineRow,_)``, for a row whose time the view model already formatted.
    /// `timeWidth` pads a shorter time on the left (today's `12:20` under `2026-11-28 09:00`),
    /// so the senders and texts of mixed rows start in one column.
    func line(_ row: RowState, senderWidth: Int, timeWidth: Int = 0) -> String {
        let time = TerminalSafe.visible(row.time)
        let padding = Self.spaces(timeWidth - time.count)
        let sender = TerminalSafe.visible(row.senderID.rawValue)
        let prefix =
            padding + output.safe(row.time) + "  " + output.styled(sender, .bold)
            + Self.spaces(senderWidth - sender.count) + "  "
        var text = row.redacted ? output.styled(row.text, .dim) : output.safe(row.text)
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
        var lines = line(untickedRow, senderWidth: senderWidth, timeWidth: timeWidth).split(
            separator: "\n", omittingEmptySubsequences: false
        ).map(String.init)
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
        let prefix =
            String(repeating: " ", count: max(0, timeWidth - TerminalCells.width(time))) + output.safe(row.time) + "  "
            + output.styled(sender, .bold)
            + String(repeating: " ", count: max(0, senderWidth - TerminalCells.width(sender))) + "  "
        let indentWidth = Terminal.visibleWidth(prefix)
        let indent = String(repeating: " ", count: indentWidth)
        let textWidth = max(1, width - indentWidth)
        var text = TextWrap.lines(
            row.redacted ? output.styled(row.text, .dim) : output.safe(row.text), width: textWidth)
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

    /// The rows' lines (``line(_:senderWidth:timeWidth:)-(RowState,_,_)``), senders and times
    /// padded to the widest of `rows`, each added to `out` as bytes (``appendLine(_:senderWidth:timeWidth:to:)``).
    func appendLines(_ rows: [TimelineRow], to out: inout LineBuffer) {
        let (states, width, timeWidth) = padded(rows)
        for state in states {
            out.appendLine { appendLine(state, senderWidth: width, timeWidth: timeWidth, to: &$0) }
        }
    }

    /// ``appendLines(_:to:)`` as strings, one a row (a multi-line text's row is one string).
    func lines(_ rows: [TimelineRow]) -> [String] {
        let (states, width, timeWidth) = padded(rows)
        return states.map { state in
            var bytes: [UInt8] = []
            appendLine(state, senderWidth: width, timeWidth: timeWidth, to: &bytes)
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// The rows with their times formatted, and the widths their senders and times are padded to.
    private func padded(_ rows: [TimelineRow]) -> (states: [RowState], senderWidth: Int, timeWidth: Int) {
        let width = rows.map { Self.characterCount($0.senderID.rawValue) }.max() ?? 0
        let states = rows.map { row in
            RowState(
                clientMessageID: row.clientMessageID, sequence: row.sequence, time: time.format(row.time),
                senderID: row.senderID, text: row.shownText, status: row.status, redacted: row.redacted)
        }
        let timeWidth = states.map { Self.characterCount(TerminalSafe.visible($0.time)) }.max() ?? 0
        return (states, width, timeWidth)
    }

    /// Adds the bytes of ``line(_:senderWidth:timeWidth:)-(RowState,_,_)`` to `bytes`. A plain
    /// row (no colour; a time, sender and one-line text of printable ASCII and tabs, as most
    /// are) is copied in without building a string per part: `view` draws every row this way.
    func appendLine(_ row: RowState, senderWidth: Int, timeWidth: Int, to bytes: inout [UInt8]) {
        let start = bytes.count
        if !output.useColor, appendPlainLine(row, senderWidth: senderWidth, timeWidth: timeWidth, to: &bytes) { return }
        bytes.removeSubrange(start...)
        bytes.append(contentsOf: line(row, senderWidth: senderWidth, timeWidth: timeWidth).utf8)
    }

    /// ``appendLine(_:senderWidth:timeWidth:to:)`` for a plain row; false as soon as a part is
    /// not plain, leaving what it appended for the caller to take back.
    private func appendPlainLine(_ row: RowState, senderWidth: Int, timeWidth: Int, to bytes: inout [UInt8]) -> Bool {
        let sender = row.senderID.rawValue
        Self.appendSpaces(timeWidth - row.time.utf8.count, to: &bytes)
        guard Self.appendPlain(row.time, to: &bytes) else { return false }
        Self.appendSpaces(2, to: &bytes)
        guard Self.appendPlain(sender, to: &bytes) else { return false }
        Self.appendSpaces(max(0, senderWidth - sender.utf8.count) + 2, to: &bytes)
        guard Self.appendPlain(row.text, to: &bytes) else { return false }
        if let tick = status(row.status, id: row.clientMessageID) {
            Self.appendSpaces(2, to: &bytes)
            bytes.append(contentsOf: tick.utf8)
        }
        return true
    }

    /// `count` spaces (none when `count` is not positive), as ``spaces(_:)`` makes them.
    private static func appendSpaces(_ count: Int, to bytes: inout [UInt8]) {
        if count > 0 { bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: count)) }
    }

    /// Whether every byte is printable ASCII or a tab: one byte, one character, one column,
    /// nothing ``TerminalSafe`` would change, no second line.
    private static func isPlain(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        utf8.allSatisfy { ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 }
    }

    /// Appends `text` when it is plain (``isPlain(_:)``); false, having appended nothing, when it is not.
    private static func appendPlain(_ text: String, to bytes: inout [UInt8]) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { utf8 in
            guard isPlain(utf8) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        } ?? false
    }

    /// `text.count`, without walking grapheme clusters when `text` is plain (``isPlain(_:)``).
    private static func characterCount(_ text: String) -> Int {
        text.utf8.withContiguousStorageIfAvailable(isPlain) == true ? text.utf8.count : text.count
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
        // Only in a Matrix store's rows, so a wire v1 row keeps the keys it always had.
        if let kind = row.kind { members.append(("kind", .string(kind.rawValue))) }
        if row.edited { members.append(("edited", .bool(true))) }
        if row.redacted { members.append(("redacted", .bool(true))) }
        switch row.status {
        case .incoming: members.append(("status", .string("incoming")))
        case .pending: members.append(("status", .string("pending")))
        case .failed(let reason):
            members.append(("status", .string("failed")))
            members.append(("error", reason.map { .string($0) } ?? .null))
        case .outgoing(let state): members.append(("status", .string(state.rawValue)))
        }
        return JSONLine.encode(.object(members))
    }
}
