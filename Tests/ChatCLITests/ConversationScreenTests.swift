import ChatDomain
import Testing

@testable import ChatCLI
@testable import ChatStore

/// The frame `view --follow` draws on a terminal.
@Suite struct ConversationScreenTests {
    func frame(_ rows: [TimelineRow], columns: Int) throws -> [String] {
        let alice = try UserID("alice")
        let state = ConversationState(
            id: try ConversationID("c1"), info: ConversationInfo(title: "Lunch", members: [alice]), members: [alice],
            rows: rows,
            hasOlder: false, pending: 0, failed: 0, positionsLoaded: true, syncWorker: nil, problems: [], exists: true)
        let view = ConversationViewModel(me: alice, time: TimeText(now: 0)).viewState(state, visibleRows: 10)
        return FollowFrame.lines(view, conversation: try ConversationID("c1"), rows: 10, columns: columns)
    }

    func row(_ text: String, from sender: String, status: TimelineRow.Status) throws -> TimelineRow {
        TimelineRow(
            clientMessageID: .random(), sequence: nil, senderID: try UserID(sender), text: text,
            time: "2026-11-29T10:02:07.000Z", status: status)
    }

    @Test("a row cut to the terminal's width ends with … and keeps its tick; a short row is left as it is")
    func cutRows() throws {
        let long = String(repeating: "word ", count: 30)
        let lines = try frame(
            [
                try row(long, from: "alice", status: .pending), try row(long, from: "bob", status: .incoming),
                try row("hi", from: "alice", status: .pending),
            ], columns: 60)
        let pending = try #require(lines.first { $0.contains("alice  word") })
        #expect(pending.count == 60, "\(pending)")
        #expect(pending.hasSuffix("…  ◷ pending"), "\(pending)")
        let incoming = try #require(lines.first { $0.contains("bob") })
        #expect(incoming.count == 60 && incoming.hasSuffix("…"), "\(incoming)")
        #expect(lines.contains { $0.hasSuffix("alice  hi  ◷ pending") })
    }
}

extension ConversationScreenTests {
    @Test("view --follow: the beginning only when every row is in view and sequence 1 is among them")
    func followBeginning() throws {
        let alice = try UserID("alice")
        let c1 = try ConversationID("c1")
        func frame(_ sequences: ClosedRange<Int>, height: Int) -> [String] {
            let rows = sequences.map {
                TimelineRow(
                    clientMessageID: .random(), sequence: $0, senderID: alice, text: "m\($0)",
                    time: "2026-11-29T10:02:07.000Z", status: .outgoing(.sent))
            }
            let state = ConversationState(
                id: c1, info: ConversationInfo(title: "Lunch", members: [alice]), members: [alice], rows: rows,
                hasOlder: false, pending: 0, failed: 0, positionsLoaded: true, syncWorker: nil, problems: [],
                exists: true)
            let view = ConversationViewModel(me: alice, time: TimeText(now: 0)).viewState(state, visibleRows: height)
            return FollowFrame.lines(view, conversation: c1, rows: height, columns: 80)
        }
        #expect(frame(1...5, height: 10)[1] == "  beginning of the conversation")
        #expect(frame(1...40, height: 10)[1] == "  older messages: chatdir view c1 --before 34")
        #expect(frame(34...40, height: 20)[1] == "  older messages are on the server: chatdir history c1")
    }
}
