import ChatDomain
import ChatTestSupport
import Testing

@testable import ChatCLI
@testable import ChatStore

/// The chat screen's rules on small ConversationState values built here: no terminal, no store,
/// the clock given. Screens are 12 rows (title, history line, 8 body lines, status, input) unless said.
@Suite(.ownThreads) struct ChatScreenModelTests {
    let alice = try! UserID("alice")
    let bob = try! UserID("bob")
    let carol = try! UserID("carol")
    let dave = try! UserID("dave")
    let c1 = try! ConversationID("c1")
    let plain = Output(environment: ["NO_COLOR": "1"])

    /// A fixed client message ID per number, so rows keep their identity across states.
    func id(_ number: Int) -> ClientMessageID {
        let digits = String(number)
        return try! ClientMessageID(
            "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits)
    }

    /// Row `sequence` (its ID the same number), from `sender`, saying `m<sequence>`.
    func row(_ sequence: Int, _ sender: UserID? = nil, _ status: TimelineRow.Status? = nil, text: String? = nil)
        -> TimelineRow
    {
        let from = sender ?? bob
        return TimelineRow(
            clientMessageID: id(sequence), sequence: sequence, senderID: from, text: text ?? "m\(sequence)",
            time: "2026-11-29T10:02:07.000Z", status: status ?? (from == alice ? .outgoing(.sent) : .incoming))
    }

    /// An outbox row of mine (ID 1000 + number).
    func outboxRow(_ number: Int, failed: String? = nil, text: String? = nil) -> TimelineRow {
        TimelineRow(
            clientMessageID: id(1000 + number), sequence: nil, senderID: alice, text: text ?? "out\(number)",
            time: "2026-11-29T10:02:07.000Z", status: failed.map { .failed(reason: $0) } ?? .pending)
    }

    func state(
        _ rows: [TimelineRow], older: Bool = false, worker: Int32? = 42, positions: Positions? = Positions(),
        members: [UserID]? = nil, title: String = "Lunch"
    ) -> ConversationState {
        let members = members ?? [alice, bob, carol]
        let failed = rows.filter { if case .failed = $0.status { true } else { false } }.count
        let pending = rows.filter { $0.status == .pending }.count
        return ConversationState(
            id: c1, info: ConversationInfo(title: title, members: members), members: members, rows: rows,
            hasOlder: older, pending: pending, failed: failed, positionsLoaded: positions != nil,
            syncWorker: worker, problems: [], exists: true, positions: positions)
    }

    func model(_ state: ConversationState? = nil, rows: Int = 12, columns: Int = 60, read: Int? = nil)
        -> ChatScreenModel
    {
        var model = ChatScreenModel(
            me: alice, conversation: c1, readPosition: read, hint: .defaultStore, rows: rows, columns: columns)
        if let state { model.update(state) }
        return model
    }

    func lines(_ model: ChatScreenModel) -> [String] { model.frame(plain).lines }

    /// The body: the lines between the history line and the status line (and what is under the rows).
    func body(_ model: ChatScreenModel) -> [String] {
        let all = lines(model)
        return Array(all[2..<(all.count - 2)])
    }

    func type(_ text: String, into model: inout ChatScreenModel, at now: Int64 = 0) -> [ChatEffect] {
        model.handle(.text(text), now: now)
    }

    // MARK: Layout

    @Test("the frame is title, history line, rows newest at the bottom, status line, then the input with the cursor")
    func layout() {
        var screen = model(state((1...3).map { row($0) }))
        let frame = screen.frame(plain)
        #expect(frame.lines.count == 12)
        #expect(frame.lines[0] == "Lunch  c1 · alice, bob, carol")
        #expect(frame.lines[1] == "  beginning of the conversation")
        #expect(frame.lines[7].hasSuffix("bob    m1"))
        #expect(frame.lines[9].hasSuffix("bob    m3"))
        #expect(frame.lines[2...6].allSatisfy { $0.isEmpty })
        #expect(frame.lines[11] == "> ")
        #expect(frame.cursorRow == 11 && frame.cursorColumn == 2)
        _ = type("héllo", into: &screen)
        let typed = screen.frame(plain)
        #expect(typed.lines[11] == "> héllo")
        #expect(typed.cursorColumn == 7)
    }

    @Test("the status line is view --follow's, just above the input")
    func statusLine() {
        let screen = model(state([row(1), outboxRow(1, failed: "no")], worker: nil))
        #expect(lines(screen)[10] == "  1 failed (chatdir retry c1 --all) · no sync worker running")
    }

    @Test(
        "every line fits the width, long messages and a narrow screen included, and a resize keeps the input line",
        arguments: [20, 33, 80])
    func fits(_ columns: Int) {
        var screen = model(
            state([row(1, text: String(repeating: "long words ", count: 20)), row(2, alice, .outgoing(.read))]),
            columns: 100)
        _ = type(String(repeating: "x", count: 150), into: &screen)
        screen.resize(rows: 9, columns: columns)
        let frame = screen.frame(plain)
        #expect(frame.lines.count == 9)
        #expect(frame.lines.allSatisfy { Terminal.visibleWidth($0) <= columns })
        #expect(frame.lines[8].hasPrefix("> x"))
        #expect(frame.cursorRow == 8)
        #expect(frame.cursorColumn == columns - 1, "the input scrolls sideways so the cursor stays on screen")
        #expect(screen.editor.text.count == 150)
        let colour = screen.frame(Output(environment: [:]))
        #expect(colour.lines.allSatisfy { Terminal.visibleWidth($0) <= columns })
    }

    @Test("a multi-line input shows at most 5 lines, scrolled to the cursor; Alt-Enter and Ctrl-J insert the newlines")
    func multiLineInput() {
        var screen = model(state([row(1)]))
        for line in 1...7 {
            _ = type("line\(line)", into: &screen)
            if line < 7 { _ = screen.handle(.newline, now: 0) }
        }
        let frame = screen.frame(plain)
        #expect(Array(frame.lines.suffix(5)) == ["  line3", "  line4", "  line5", "  line6", "  line7"])
        #expect(frame.cursorRow == 11 && frame.cursorColumn == 7)
        _ = screen.handle(.up, now: 0)
        _ = screen.handle(.up, now: 0)
        _ = screen.handle(.up, now: 0)
        _ = screen.handle(.up, now: 0)
        _ = screen.handle(.up, now: 0)
        let top = screen.frame(plain)
        #expect(Array(top.lines.suffix(5)) == ["> line1", "  line2", "  line3", "  line4", "  line5"])
        #expect(top.cursorRow == 8)
        let got1 = screen.handle(.enter, now: 0)
        #expect(got1 == [.send("line1\nline2\nline3\nline4\nline5\nline6\nline7")])
    }

    @Test("an unread marker stands above the first incoming message past my read position when the screen opened")
    func unreadMarker() throws {
        let rows = [row(1), row(2), row(3, alice), row(4), row(5, carol)]
        let screen = model(state(rows), read: 2)
        let shown = body(screen)
        let marker = try #require(shown.firstIndex { $0.hasPrefix("── 2 new ─") })
        #expect(shown[marker + 1].hasSuffix("bob    m4"))
        #expect(shown[marker - 1].contains("m3"))
        #expect(Terminal.visibleWidth(shown[marker]) == 60)
        #expect(!lines(model(state(rows), read: nil)).contains { $0.contains(" new ─") })
        #expect(!lines(model(state(rows), read: 5)).contains { $0.contains(" new ─") })
    }

    @Test(
        "the typing line names who types, only while someone does; mine never shows; a signal older than 6 s is gone",
        arguments: [
            ([1], "  bob is typing…"),
            ([1, 2], "  bob and carol are typing…"),
            ([1, 2, 3], "  3 people are typing…"),
        ])
    func typingLine(_ who: [Int], _ expected: String) {
        var screen = model(state([row(1)], members: [alice, bob, carol, dave]))
        let users = [alice, bob, carol, dave]
        let typing =
            [(user: alice, milliseconds: Int64(10_000))]
            + who.map { (user: users[$0], milliseconds: Int64(10_000 - 500 * $0)) }
        screen.update(typing: typing, now: 10_000)
        #expect(lines(screen)[9] == expected)
        #expect(lines(screen).count == 12)
        _ = screen.tick(now: 16_000)
        #expect(lines(screen)[9] != expected || who == [1], "bob's signal at 9,500 is 6.5 s old, the others' older")
        _ = screen.tick(now: 16_600)
        #expect(!lines(screen).contains { $0.contains("typing") })
        screen.update(typing: [(user: alice, milliseconds: 16_600)], now: 16_600)
        #expect(!lines(screen).contains { $0.contains("typing") })
    }

    // MARK: The line editor in the screen

    @Test("Enter sends the line as typed (trailing newline trimmed) and clears it; Enter on a blank line does nothing")
    func send() {
        var screen = model(state([row(1)]))
        _ = screen.takeEffects()
        let got2 = screen.handle(.enter, now: 0)
        #expect(got2 == [])
        _ = type("  ", into: &screen)
        let got3 = screen.handle(.enter, now: 0)
        #expect(got3 == [])
        _ = type(" hi  there", into: &screen)
        _ = screen.handle(.newline, now: 0)
        let got4 = screen.handle(.enter, now: 0)
        #expect(got4 == [.send("   hi  there")])
        #expect(screen.editor.isEmpty)
    }

    @Test("the readline keys edit the line through the screen")
    func editingKeys() {
        var screen = model(state([row(1)]))
        _ = type("hello big world", into: &screen)
        _ = screen.handle(.control("w"), now: 0)
        #expect(screen.editor.text == "hello big ")
        _ = screen.handle(.control("a"), now: 0)
        _ = screen.handle(.delete, now: 0)
        _ = screen.handle(.right, now: 0)
        _ = screen.handle(.backspace, now: 0)
        #expect(screen.editor.text == "llo big ")
        _ = screen.handle(.end, now: 0)
        _ = screen.handle(.left, now: 0)
        _ = screen.handle(.control("k"), now: 0)
        #expect(screen.editor.text == "llo big")
        _ = screen.handle(.home, now: 0)
        _ = screen.handle(.control("e"), now: 0)
        _ = type("!", into: &screen)
        _ = screen.handle(.left, now: 0)
        _ = screen.handle(.control("u"), now: 0)
        #expect(screen.editor.text == "!")
        _ = screen.handle(.paste("a\nb"), now: 0)
        #expect(screen.editor.text == "a\nb!")
    }

    @Test("↑ on an empty line recalls the last message I sent here, else my newest row's text")
    func recall() {
        var screen = model(state([row(1, alice, text: "from before"), row(2)]))
        _ = screen.handle(.up, now: 0)
        #expect(screen.editor.text == "from before")
        _ = screen.handle(.control("u"), now: 0)
        _ = type("new one", into: &screen)
        _ = screen.handle(.enter, now: 0)
        _ = screen.handle(.up, now: 0)
        #expect(screen.editor.text == "new one")
        _ = screen.handle(.up, now: 0)
        #expect(screen.editor.text == "new one", "on a line that is not empty ↑ does not recall")
    }

    @Test("Ctrl-C quits; Ctrl-D quits on an empty line and deletes forward on another")
    func quit() {
        var screen = model(state([row(1)]))
        _ = screen.takeEffects()
        let got5 = screen.handle(.control("d"), now: 0)
        #expect(got5 == [.quit])
        _ = type("ab", into: &screen)
        _ = screen.handle(.left, now: 0)
        let got6 = screen.handle(.control("d"), now: 0).contains(.quit)
        #expect(got6 == false)
        #expect(screen.editor.text == "a")
        let got7 = screen.handle(.control("c"), now: 0)
        #expect(got7 == [.quit])
    }

    // MARK: Selection and retry

    var failedState: ConversationState {
        state([
            row(1), row(2, alice), row(3), outboxRow(1, failed: "too long"), outboxRow(2),
            outboxRow(3, failed: "read-only"),
        ])
    }

    @Test(
        "Tab and Shift-Tab move among my failed rows newest first, then my accepted rows; ↑/↓ move while a selection exists"
    )
    func selection() {
        var screen = model(failedState)
        _ = screen.handle(.tab, now: 0)
        #expect(screen.selected == id(1003))
        _ = screen.handle(.tab, now: 0)
        #expect(screen.selected == id(1001))
        _ = screen.handle(.tab, now: 0)
        #expect(screen.selected == id(2), "then my accepted row, for its receipts")
        _ = screen.handle(.tab, now: 0)
        #expect(screen.selected == id(2), "the oldest stays selected")
        _ = screen.handle(.backTab, now: 0)
        #expect(screen.selected == id(1001))
        _ = screen.handle(.down, now: 0)
        #expect(screen.selected == id(1003))
        _ = screen.handle(.up, now: 0)
        #expect(screen.selected == id(1001))
        #expect(screen.editor.isEmpty, "↑ with a selection does not recall")
        let drawn = lines(screen)
        #expect(drawn.filter { $0.hasPrefix("» ") }.count == 1)
        #expect(drawn.first { $0.hasPrefix("» ") }?.contains("out1") == true)
        _ = screen.handle(.escape, now: 0)
        #expect(screen.selected == nil)
        #expect(!lines(screen).contains { $0.hasPrefix("» ") })
    }

    @Test(
        "r or Enter on a selected failed row retries it with its ID; other letters go to the input and clear the selection"
    )
    func retry() {
        var screen = model(failedState)
        _ = screen.handle(.tab, now: 0)
        let got8 = screen.handle(.text("r"), now: 0)
        #expect(got8 == [.retry(id(1003))])
        #expect(screen.selected == nil)
        #expect(screen.editor.isEmpty)
        _ = screen.handle(.tab, now: 0)
        _ = screen.handle(.tab, now: 0)
        let got9 = screen.handle(.enter, now: 0)
        #expect(got9 == [.retry(id(1001))])
        _ = screen.handle(.tab, now: 0)
        _ = type("x", into: &screen)
        #expect(screen.selected == nil)
        #expect(screen.editor.text == "x")
        var none = model(state([row(1)]))
        _ = none.handle(.tab, now: 0)
        #expect(none.selected == nil, "nothing of mine to select")
    }

    @Test("a retried row, pending again, loses the selection")
    func retriedRowDeselected() {
        var screen = model(failedState)
        _ = screen.handle(.tab, now: 0)
        var rows = failedState.rows
        rows[5].status = .pending
        screen.update(state(rows))
        #expect(screen.selected == nil)
    }

    @Test(
        "i on a selected row of mine shows who has it and who read it, from the positions; Esc closes it, Esc again clears the selection"
    )
    func receiptsPanel() {
        let positions = Positions([
            bob: MemberPosition(deliveredUpTo: 3, readUpTo: 2), carol: MemberPosition(deliveredUpTo: 1, readUpTo: 1),
        ])
        var screen = model(state([row(1), row(2, alice), row(3)], positions: positions), rows: 14, columns: 80)
        _ = screen.handle(.tab, now: 0)
        _ = screen.handle(.text("i"), now: 0)
        #expect(screen.editor.isEmpty)
        let drawn = lines(screen)
        #expect(
            Array(drawn[9...11]) == [
                "  receipts of 2: delivered to 1 of 2 · read by 1 of 2  (Esc closes)",
                "    bob    ✓✓ read",
                "    carol  ✓ not delivered yet",
            ])
        _ = screen.handle(.escape, now: 0)
        #expect(!lines(screen).contains { $0.contains("receipts of") })
        #expect(screen.selected == id(2))
        _ = screen.handle(.escape, now: 0)
        #expect(screen.selected == nil)
        var unloaded = model(state([row(2, alice)], positions: nil))
        _ = unloaded.handle(.tab, now: 0)
        _ = unloaded.handle(.text("i"), now: 0)
        #expect(lines(unloaded).contains("  receipts of 2: not loaded yet (the sync worker loads them)"))
    }

    @Test("the selected row is scrolled into view")
    func selectionScrolls() {
        let rows = [row(1), outboxRow(1, failed: "no")].map { $0 } + (2...40).map { row($0) }
        // The failed row sorts last in a real timeline; here it stands high up, as a prepended row would.
        var screen = model(state([rows[0], rows[1]] + Array(rows[2...])))
        #expect(!lines(screen).contains { $0.contains("out1") })
        _ = screen.handle(.tab, now: 0)
        #expect(lines(screen).contains { $0.hasPrefix("» ") && $0.contains("out1") })
    }

    // MARK: Scrolling

    func scrolled(_ count: Int = 40) -> ChatScreenModel {
        model(state((1...count).map { row($0) }, worker: 1))
    }

    @Test("PageUp moves a page (body height − 1 lines), PageDown back; the wheel moves 3 lines")
    func paging() {
        var screen = scrolled()
        #expect(body(screen).last?.hasSuffix("m40") == true)
        _ = screen.handle(.pageUp, now: 0)
        #expect(body(screen).last?.hasSuffix("m33") == true, "7 lines up: m33 was at the top and stays in view")
        _ = screen.handle(.wheelUp, now: 0)
        #expect(body(screen).last?.hasSuffix("m30") == true)
        _ = screen.handle(.wheelDown, now: 0)
        _ = screen.handle(.pageDown, now: 0)
        #expect(body(screen).last?.hasSuffix("m40") == true)
        #expect(screen.anchor == nil, "back at the bottom")
    }

    @Test("at the bottom, new rows show at once; scrolled up, the view stays on the same rows when new ones arrive")
    func newRows() {
        var screen = scrolled()
        screen.update(state((1...41).map { row($0) }, worker: 1))
        #expect(body(screen).last?.hasSuffix("m41") == true)
        _ = screen.handle(.pageUp, now: 0)
        let before = body(screen)
        screen.update(state((1...45).map { row($0) }, worker: 1))
        #expect(body(screen) == before)
    }

    @Test("rows prepended above keep the view on the row the reader looks at")
    func prependKeepsView() {
        var screen = model(state((31...70).map { row($0) }, older: true))
        for _ in 0..<4 { _ = screen.handle(.pageUp, now: 0) }
        let before = body(screen)
        screen.prepend((21...30).map { row($0) }, hasOlder: true)
        #expect(body(screen) == before)
        #expect(screen.timeline.first?.sequence == 21)
    }

    @Test(
        "when the row the view stands on goes away, the view stays near its sequence instead of jumping to the bottom")
    func anchorRowGone() {
        var screen = scrolled()
        for _ in 0..<3 { _ = screen.handle(.pageUp, now: 0) }
        let top = screen.anchor?.sequence ?? 0
        #expect(top > 1 && top < 30)
        screen.update(state((1...40).filter { $0 != top }.map { row($0) }, worker: 1))
        #expect(screen.anchor?.sequence == top + 1)
    }

    // MARK: Older history

    @Test("at the top with older rows stored: loadOlderStored once, again only after prepend answered")
    func olderStored() {
        var screen = model(state((31...40).map { row($0) }, older: true))
        let got10 = screen.takeEffects()
        #expect(got10 == [.markRead(upTo: 40)])
        #expect(lines(screen)[1] == "  ↑ older messages")
        var effects = screen.handle(.pageUp, now: 0)
        effects += screen.handle(.pageUp, now: 0)
        #expect(effects == [.loadOlderStored(before: 31)])
        #expect(lines(screen)[1] == "  loading older…")
        let got11 = screen.handle(.wheelUp, now: 0)
        #expect(got11 == [])
        screen.prepend((21...30).map { row($0) }, hasOlder: true)
        let got12 = screen.takeEffects()
        #expect(got12 == [])
        let got13 = screen.handle(.pageUp, now: 0) + screen.handle(.pageUp, now: 0)
        #expect(got13 == [.loadOlderStored(before: 21)])
    }

    @Test(
        "older rows read on their own are read again when the observer met a change below its rows; the view stays, and a new state without one asks nothing"
    )
    func olderReloaded() {
        var first = state((31...40).map { row($0) }, older: true)
        first.olderRevision = 3
        var screen = model(first)
        _ = screen.takeEffects()
        screen.prepend((21...30).map { row($0) }, hasOlder: true)
        for _ in 0..<2 { _ = screen.handle(.pageUp, now: 0) }
        _ = screen.takeEffects()
        let anchor = screen.anchor?.sequence
        #expect((anchor ?? 0) < 31)

        var moved = first
        moved.rows.append(row(41))
        let got = screen.takeEffects()
        #expect(got == [])
        screen.update(moved)
        let unchanged = screen.takeEffects()
        #expect(!unchanged.contains(.reloadOlderStored(from: 21, before: 31)))

        moved.olderRevision = 4
        screen.update(moved)
        let reload = screen.takeEffects()
        #expect(reload.contains(.reloadOlderStored(from: 21, before: 31)))
        screen.replaceOlder((21...30).map { row($0, text: $0 == 25 ? "(message deleted)" : nil) }, from: 21)
        #expect(screen.timeline.first { $0.sequence == 25 }?.text == "(message deleted)")
        #expect(screen.timeline.map(\.sequence) == (21...41).map { $0 })
        #expect(screen.anchor?.sequence == anchor)
    }

    @Test(
        "at the top of what is stored: wantOlder once, loading older… while a worker runs, loadOlderStored when it stored the page"
    )
    func wantOlder() {
        var screen = model(state((31...35).map { row($0) }, worker: 1))
        let got14 = screen.takeEffects()
        #expect(got14 == [.wantOlder(before: 31), .markRead(upTo: 35)])
        #expect(lines(screen)[1] == "  loading older…")
        let got15 = screen.handle(.pageUp, now: 0)
        #expect(got15 == [])
        screen.update(olderAnswer: .loading(before: 31), workerRunning: true)
        let got16 = screen.takeEffects()
        #expect(got16 == [])
        screen.update(olderAnswer: .stored(before: 31), workerRunning: true)
        let got17 = screen.takeEffects()
        #expect(got17 == [.loadOlderStored(before: 31)])
        screen.update(olderAnswer: .stored(before: 31), workerRunning: true)
        let got18 = screen.takeEffects()
        #expect(got18 == [])
        screen.prepend((28...30).map { row($0) }, hasOlder: false)
        let got19 = screen.takeEffects()
        #expect(got19 == [.wantOlder(before: 28)], "all 8 rows fit: the top shows again")
    }

    /// Carries out effects as the chat session does, with `stored` as what the store holds:
    /// a ``ChatEffect/loadOlderStored(before:)`` is answered with up to `page` rows before it.
    func perform(_ effects: [ChatEffect], on screen: inout ChatScreenModel, stored: [TimelineRow], page: Int = 100) {
        var effects = effects
        while !effects.isEmpty {
            if case .loadOlderStored(let before) = effects.removeFirst() {
                let older = stored.filter { ($0.sequence ?? .max) < before }
                screen.prepend(Array(older.suffix(page)), hasOlder: older.count > page)
            }
            effects += screen.takeEffects()
        }
    }

    @Test(
        "the worker's page seen as a new stored segment before its answer is read once: PageUp still reaches the beginning",
        arguments: [false, true])
    func olderPageSeenTwice(answeredBeforeRead: Bool) {
        var screen = model(state((31...50).map { row($0) }, worker: 1))
        var effects = screen.takeEffects()
        for _ in 0..<4 { effects += screen.handle(.pageUp, now: 0) }
        #expect(effects.contains(.wantOlder(before: 31)))
        // The worker stores the page before 31: the observer's state says older rows are
        // stored, and the screen, at the top, reads them before the worker's answer arrives
        // (or, as the session feeds them, with the answer read just after the state).
        let stored = (1...30).map { row($0) }
        screen.update(state((31...50).map { row($0) }, older: true, worker: 1))
        if answeredBeforeRead { screen.update(olderAnswer: .stored(before: 31), workerRunning: true) }
        perform(screen.takeEffects(), on: &screen, stored: stored)
        screen.update(olderAnswer: .stored(before: 31), workerRunning: true)
        perform(screen.takeEffects(), on: &screen, stored: stored)
        #expect(screen.timeline.compactMap(\.sequence) == Array(1...50), "each row once")
        for _ in 0..<10 { perform(screen.handle(.pageUp, now: 0), on: &screen, stored: stored) }
        #expect(lines(screen)[1] == "  beginning of the conversation")
        #expect(body(screen).first?.hasSuffix("m1") == true)
    }

    @Test("without a worker the history line says how to get one")
    func noWorker() {
        var screen = model(state((31...35).map { row($0) }, worker: nil), columns: 80)
        screen.update(olderAnswer: nil, workerRunning: false)
        #expect(lines(screen)[1] == "  no sync worker running: `chatdir sync --live` loads older messages")
    }

    @Test("the beginning: sequence 1 shown or the worker's answer, and no more effects")
    func beginning() {
        var first = model(state((1...5).map { row($0) }))
        let got20 = first.takeEffects()
        #expect(got20 == [.markRead(upTo: 5)])
        let got21 = first.handle(.pageUp, now: 0)
        #expect(got21 == [])
        #expect(lines(first)[1] == "  beginning of the conversation")
        var answered = model(state((31...35).map { row($0) }))
        _ = answered.takeEffects()
        answered.update(olderAnswer: .beginning(before: 31), workerRunning: true)
        let got22 = answered.takeEffects()
        #expect(got22 == [])
        #expect(lines(answered)[1] == "  beginning of the conversation")
        let got23 = answered.handle(.pageUp, now: 0)
        #expect(got23 == [])
    }

    @Test("a failure's words show neutralised in the history line, and PageUp at the top asks again")
    func olderFailed() {
        var screen = model(state((31...35).map { row($0) }))
        _ = screen.takeEffects()
        screen.update(olderAnswer: .failed(before: 31, reason: "server said \u{1B}[2J no"), workerRunning: true)
        #expect(lines(screen)[1] == "  older messages could not be loaded: server said ^[[2J no")
        let got24 = screen.handle(.pageUp, now: 0)
        #expect(got24 == [.wantOlder(before: 31)])
    }

    // MARK: Mark read

    @Test("the newest row on screen with focus (or focus unknown) marks read once per new newest, forward only")
    func markRead() {
        var screen = scrolled()
        let got25 = screen.takeEffects()
        #expect(got25 == [.markRead(upTo: 40)])
        screen.update(state((1...40).map { row($0) }, worker: 1))
        let got26 = screen.takeEffects()
        #expect(got26 == [])
        _ = screen.handle(.pageUp, now: 0)
        screen.update(state((1...41).map { row($0) }, worker: 1))
        let got27 = screen.takeEffects()
        #expect(got27 == [], "scrolled up: nothing")
        let got28 = screen.handle(.pageDown, now: 0) + screen.handle(.pageDown, now: 0)
        #expect(got28 == [.markRead(upTo: 41)])
        _ = screen.handle(.focusOut, now: 0)
        screen.update(state((1...42).map { row($0) } + [outboxRow(1)], worker: 1))
        let got29 = screen.takeEffects()
        #expect(got29 == [], "no focus: nothing")
        let got30 = screen.handle(.focusIn, now: 0)
        #expect(got30 == [.markRead(upTo: 42)], "the newest sequenced row, not the pending one")
        var behind = model(state((1...8).map { row($0) }), read: 10)
        let got31 = behind.takeEffects()
        #expect(got31 == [])
        let stored = Positions([alice: MemberPosition(deliveredUpTo: 9, readUpTo: 9)])
        var storedAhead = model(state((1...8).map { row($0) }, positions: stored))
        let got32 = storedAhead.takeEffects()
        #expect(got32 == [])
    }

    @Test("update's effects also come back from the next tick, so none is lost")
    func effectsFromTick() {
        var screen = scrolled()
        let got33 = screen.tick(now: 500)
        #expect(got33 == [.markRead(upTo: 40)])
        let got34 = screen.tick(now: 1000)
        #expect(got34 == [])
    }

    // MARK: Typing

    @Test("editing a non-blank line signals typing at most once per 3 s, none 5 s after the last key, none after send")
    func typingSignals() {
        var screen = scrolled()
        _ = screen.takeEffects()
        let got35 = screen.handle(.text(" "), now: 0)
        #expect(got35 == [], "a blank line is not typing")
        let got36 = screen.handle(.text("h"), now: 100)
        #expect(got36 == [.signalTyping])
        let got37 = screen.handle(.text("i"), now: 1_000)
        #expect(got37 == [])
        let got38 = screen.handle(.left, now: 3_500)
        #expect(got38 == [], "moving the cursor is not an edit")
        let got39 = screen.handle(.text("!"), now: 3_100)
        #expect(got39 == [.signalTyping])
        let got40 = screen.tick(now: 5_000)
        #expect(got40 == [])
        let got41 = screen.tick(now: 6_100)
        #expect(got41 == [.signalTyping], "still within 5 s of the last key")
        let got42 = screen.tick(now: 8_100)
        #expect(got42 == [], "5 s after the last key")
        let got43 = screen.tick(now: 9_500)
        #expect(got43 == [])
        let got44 = screen.handle(.backspace, now: 10_000)
        #expect(got44 == [.signalTyping])
        let got45 = screen.handle(.enter, now: 10_100)
        #expect(got45 == [.send(" hi")])
        let got46 = screen.tick(now: 13_500)
        #expect(got46 == [])
        let got47 = screen.handle(.text("n"), now: 14_000)
        #expect(got47 == [.signalTyping])
    }

    // MARK: Untrusted text

    @Test("titles, message text and failure reasons from outside show their control characters as notation")
    func untrusted() {
        let screen = model(
            state(
                [row(1, text: "hi \u{1B}]52;c;AAAA\u{07} there"), outboxRow(1, failed: "bad \u{9B}31m")],
                title: "T\u{1B}[2Jx"))
        let drawn = lines(screen)
        #expect(drawn[0].hasPrefix("T^[[2Jx  c1"))
        #expect(drawn.contains { $0.contains("hi ^[]52;c;AAAA^G there") })
        #expect(drawn.contains { $0.contains("✗ failed: bad \\u{9b}31m") })
        #expect(!drawn.joined().unicodeScalars.contains { TerminalSafe.isUnsafe($0) })
        let colour = screen.frame(Output(environment: [:])).lines.joined()
        #expect(!colour.contains("\u{1B}]") && !colour.contains("\u{1B}[2J") && !colour.contains("\u{9B}"))
    }
}

extension ChatScreenModelTests {
    @Test("the beginning of the conversation is said only with sequence 1's top in view, before and after a resize")
    func beginningOnlyAtTheTop() {
        var screen = model(state((1...40).map { row($0) }), rows: 12)
        #expect(lines(screen)[1] == "  ↑ older messages")
        screen.resize(rows: 8, columns: 60)
        #expect(lines(screen)[1] == "  ↑ older messages")
        for _ in 0..<40 where lines(screen)[1] != "  beginning of the conversation" {
            _ = screen.handle(.pageUp, now: 0)
        }
        #expect(lines(screen)[1] == "  beginning of the conversation")
        #expect(lines(screen)[2].hasSuffix("bob    m1"))
    }
}
