@testable import ChatCLI
import ChatDomain
import Testing

/// How rows are laid out as text lines.
@Suite struct RowTextTests {
    func row(_ time: String, text: String) throws -> TimelineRow {
        TimelineRow(clientMessageID: .random(), sequence: 1, senderID: try UserID("alice"), text: text, time: time, status: .incoming)
    }

    @Test("today's rows (time only) and older ones (date and time) line up: the sender and the text start in the same column")
    func mixedDates() throws {
        let now = try #require(TimeText.parse("2026-11-29T12:00:00.000Z"))
        var text = RowText(output: Output(environment: ["NO_COLOR": "1"]), conversation: try ConversationID("c1"))
        text.time = TimeText(now: now)
        let lines = text.lines([try row("2026-11-28T09:00:00.000Z", text: "older"), try row("2026-11-29T12:00:00.000Z", text: "today")])
        let columns = lines.map { line in line.distance(from: line.startIndex, to: line.range(of: "alice")?.lowerBound ?? line.startIndex) }
        #expect(columns.count == 2 && columns[0] == columns[1] && columns[0] > 0, "\(lines)")
        #expect(lines[1].hasSuffix("alice  today"))
    }
}
