import ChatDomain
import Testing

@testable import ChatCLI

/// How rows are laid out as text lines.
@Suite struct RowTextTests {
    func row(_ time: String, text: String) throws -> TimelineRow {
        TimelineRow(
            clientMessageID: .random(), sequence: 1, senderID: try UserID("alice"), text: text, time: time,
            status: .incoming)
    }

    @Test(
        "today's rows (time only) and older ones (date and time) line up: the sender and the text start in the same column"
    )
    func mixedDates() throws {
        let now = try #require(TimeText.parse("2026-11-29T12:00:00.000Z"))
        var text = RowText(output: Output(environment: ["NO_COLOR": "1"]), conversation: try ConversationID("c1"))
        text.time = TimeText(now: now)
        let lines = text.lines([
            try row("2026-11-28T09:00:00.000Z", text: "older"), try row("2026-11-29T12:00:00.000Z", text: "today"),
        ])
        let columns = lines.map { line in
            line.distance(from: line.startIndex, to: line.range(of: "alice")?.lowerBound ?? line.startIndex)
        }
        #expect(columns.count == 2 && columns[0] == columns[1] && columns[0] > 0, "\(lines)")
        #expect(lines[1].hasSuffix("alice  today"))
    }

    @Test("a deleted message's words are dim with colour on, in a line and in the chat screen's wrapped lines")
    func redactedIsDim() throws {
        var output = Output(environment: ["NO_COLOR": "1"])
        output.useColor = true
        var text = RowText(output: output, conversation: try ConversationID("c1"))
        text.time = TimeText(now: try #require(TimeText.parse("2026-11-29T12:00:00.000Z")))
        let row = TimelineRow(
            clientMessageID: .random(), sequence: 1, senderID: try UserID("@bob:example.org"), text: "",
            time: "2026-11-29T12:00:00.000Z", status: .incoming, redacted: true)
        let dim = "\u{1B}[2m(message deleted)\u{1B}[0m"
        #expect(text.line(row, senderWidth: 0).hasSuffix(dim))
        let state = ConversationViewModel(me: try UserID("@alice:example.org"), time: text.time).rowState(row)
        #expect(text.wrappedLines(state, senderWidth: 0, timeWidth: 0, width: 80).last?.hasSuffix(dim) == true)
    }

    /// Rows of every kind a line can meet: plain ASCII, tabs, several lines, control
    /// characters and escapes, bidi overrides, non-ASCII text and senders, every tick, a
    /// `sentAt` that is not ISO 8601 (shown as given, CR and all).
    static func assortedRows() throws -> [RowState] {
        let texts = [
            "hello", "tab\there", "two\nlines\nthree", "\u{1B}[2Jclear", "caf\u{E9} \u{1F600}", "\u{202E}evil", "",
            "  spaced  ", "cr\r\nlf", "\u{9B}31m",
        ]
        let times = ["09:00", "2026-11-28 09:00", "not a time\r\n", "\u{1B}]52;c;x\u{7}", "\u{65}\u{301}t\u{E9}"]
        let senders = ["alice", "bob", "x.y_z-1", "a-very-long-sender-name"]
        let statuses: [TimelineRow.Status] = [
            .incoming, .pending, .failed(reason: "server said \u{1B}[31mno"), .failed(reason: nil), .outgoing(.unknown),
            .outgoing(.sent), .outgoing(.delivered), .outgoing(.read),
        ]
        var rows: [RowState] = []
        for (index, text) in texts.enumerated() {
            for (offset, time) in times.enumerated() {
                let sender = try UserID(senders[(index + offset) % senders.count])
                let status = statuses[(index * times.count + offset) % statuses.count]
                rows.append(
                    RowState(
                        clientMessageID: .random(), sequence: index + 1, time: time, senderID: sender, text: text,
                        status: status))
            }
        }
        return rows
    }

    @Test(
        "a line written as bytes is the line built as a string, byte for byte, for every kind of row, with colour and without",
        arguments: [false, true])
    func bytesAreTheLine(colour: Bool) throws {
        var output = Output(environment: ["NO_COLOR": "1"])
        output.useColor = colour
        let text = RowText(output: output, conversation: try ConversationID("c1"))
        for row in try Self.assortedRows() {
            for (senderWidth, timeWidth) in [(0, 0), (5, 5), (12, 16), (30, 20)] {
                var bytes: [UInt8] = [0x41]
                text.appendLine(row, senderWidth: senderWidth, timeWidth: timeWidth, to: &bytes)
                let expected = "A" + text.line(row, senderWidth: senderWidth, timeWidth: timeWidth)
                #expect(
                    bytes == Array(expected.utf8),
                    "\(row.time.debugDescription) \(row.senderID) \(row.text.debugDescription) \(row.status)")
            }
        }
    }

    @Test("plain rows line up: times padded on the left, senders to the widest, the tick after two spaces")
    func plainLayout() throws {
        let now = try #require(TimeText.parse("2026-11-29T12:00:00.000Z"))
        var text = RowText(output: Output(environment: ["NO_COLOR": "1"]), conversation: try ConversationID("c1"))
        text.time = TimeText(now: now)
        let me = try UserID("bob")
        let rows = [
            TimelineRow(
                clientMessageID: .random(), sequence: 1, senderID: try UserID("alice"), text: "older",
                time: "2026-11-28T09:00:00.000Z", status: .incoming),
            TimelineRow(
                clientMessageID: .random(), sequence: 2, senderID: me, text: "tab\there",
                time: "2026-11-29T12:00:00.000Z", status: .outgoing(.read)),
            TimelineRow(
                clientMessageID: .random(), sequence: 3, senderID: me, text: "two\nlines",
                time: "2026-11-29T12:01:00.000Z", status: .outgoing(.sent)),
        ]
        let local = { (iso: String) in text.time.format(iso) }
        #expect(
            text.lines(rows) == [
                "\(local("2026-11-28T09:00:00.000Z"))  alice  older",
                "           \(local("2026-11-29T12:00:00.000Z"))  bob    tab\there  ✓✓ read",
                "           \(local("2026-11-29T12:01:00.000Z"))  bob    two\n                         lines  ✓ sent",
            ])
    }
}
