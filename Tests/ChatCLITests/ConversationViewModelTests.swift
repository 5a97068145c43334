import ChatDomain
import ChatTestSupport
import Testing

@testable import ChatCLI
@testable import ChatStore

@Suite(.ownThreads) struct ConversationViewModelTests {
    let alice = try! UserID("alice")
    let bob = try! UserID("bob")
    let c1 = try! ConversationID("c1")

    func row(_ sequence: Int?, from sender: UserID, status: TimelineRow.Status = .incoming) -> TimelineRow {
        TimelineRow(
            clientMessageID: .random(), sequence: sequence, senderID: sender, text: "text \(sequence ?? 0)",
            time: "2026-11-29T10:02:07.000Z", status: status)
    }

    func state(
        rows: [TimelineRow], pending: Int = 0, failed: Int = 0, positions: Bool = true, worker: Int32? = nil,
        older: Bool = false
    ) -> ConversationState {
        ConversationState(
            id: c1, info: ConversationInfo(title: "Lunch", members: [alice, bob]), members: [alice, bob], rows: rows,
            hasOlder: older, pending: pending, failed: failed, positionsLoaded: positions, syncWorker: worker,
            problems: [], exists: true)
    }

    @Test("the status line counts pending and failed, says how to retry, and whether a sync worker runs")
    func statusLine() {
        let model = ConversationViewModel(me: alice)
        #expect(
            model.viewState(state(rows: [], pending: 2, failed: 1, worker: 42)).status
                == "2 pending · 1 failed (chatdir retry c1 --all) · sync worker running (pid 42)")
        #expect(
            model.viewState(state(rows: [], pending: 1, positions: false)).status
                == "1 pending · receipts not loaded yet · no sync worker running: pending messages wait in the outbox")
    }

    @Test(
        "a watcher that polls (inotify limit reached) is said first on the status line, so a narrow screen still shows it"
    )
    func statusLineWhilePolling() {
        var polling = state(rows: [], pending: 1)
        polling.polling = WatchFallback(
            limit: .watches, path: "/s/conversations/c1/messages", intervalMilliseconds: 1000, value: 8192,
            namespaceValue: nil)
        #expect(
            ConversationViewModel(me: alice).viewState(polling).status
                == "checking for changes every second: inotify watch limit reached (fs.inotify.max_user_watches) · 1 pending · "
                + "no sync worker running: pending messages wait in the outbox")
    }

    @Test("only the newest visible rows are formatted; the total and the history hint say what is above")
    func visibleRows() {
        let rows = (1...10_000).map { row($0, from: $0 % 2 == 0 ? alice : bob) }
        let view = ConversationViewModel(me: alice, time: TimeText(now: 0)).viewState(
            state(rows: rows, older: true), visibleRows: 20)
        #expect(view.rows.count == 20)
        #expect(view.rows.first?.sequence == 9_981)
        #expect(view.totalRows == 10_000)
        #expect(view.history == .olderStored(before: 1))
        #expect(view.rows.allSatisfy { $0.time != "2026-11-29T10:02:07.000Z" }, "times are formatted")
        #expect(view.title == "Lunch")
        #expect(view.subtitle == "c1 · alice, bob")
    }

    @Test("the screen puts the newest row at the bottom above the status line, every line within the width")
    func screenLayout() {
        let rows = [
            row(1, from: bob), row(2, from: alice, status: .outgoing(.read)), row(nil, from: alice, status: .pending),
        ]
        let view = ConversationViewModel(me: alice).viewState(state(rows: rows), visibleRows: 10)
        let output = Output(environment: ["NO_COLOR": "1"])
        let frame = ConversationScreen(output: output, conversation: c1).frame(view, rows: 10, columns: 60)
        #expect(frame.count == 10)
        #expect(frame[0].hasPrefix("Lunch"))
        #expect(frame[8].contains("◷ pending"))
        #expect(frame[7].contains("✓✓ read"))
        #expect(frame[9].contains("no sync worker running"))
        #expect(frame.allSatisfy { $0.count <= 60 })
    }

    @Test("in a pipe, a row is printed when new and again only when it changed")
    func printerPrintsChangesOnce() {
        var printer = RowPrinter(
            output: Output(environment: ["NO_COLOR": "1"]), conversation: c1, me: alice, json: true)
        let first = row(1, from: bob)
        var mine = row(2, from: alice, status: .outgoing(.sent))
        #expect(printer.lines(for: state(rows: [first])).count == 1)
        #expect(printer.lines(for: state(rows: [first, mine])).count == 1)
        #expect(printer.lines(for: state(rows: [first, mine])).isEmpty)
        mine.status = .outgoing(.read)
        let changed = printer.lines(for: state(rows: [first, mine]))
        #expect(changed.count == 1)
        #expect(changed.first?.contains("\"status\":\"read\"") == true)
    }

    @Test(arguments: [("abcdef", 3, "abc"), ("\u{1B}[1mabcdef\u{1B}[0m", 2, "\u{1B}[1mab\u{1B}[0m"), ("ab", 5, "ab")])
    func fitKeepsEscapes(line: String, width: Int, expected: String) {
        #expect(Terminal.fit(line, width: width) == expected)
    }
}
