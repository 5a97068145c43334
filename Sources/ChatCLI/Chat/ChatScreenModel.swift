import ChatDomain
import ChatStore

/// Everything the chat screen (`chatdir chat CONV`) shows and every rule of what a key does,
/// as a value: the coordinator feeds it the observer's states, the runtime channel's typing and
/// older-page answers, keys and a clock tick, performs the ``ChatEffect``s it returns, and draws
/// ``frame(_:)``. It reads no file and no clock (`now` is wall-clock milliseconds, given), so
/// every rule is tested without a terminal.
///
/// Decisions the rules leave open:
/// - Tab and Shift-Tab move the selection through my failed rows (newest first), then on
///   through my accepted rows (newest first), so `i` can show the receipts of any message of
///   mine; `r` and Enter retry a selected failed row, and Enter on an accepted row opens its
///   receipts as `i` does. Pending rows are never selected.
/// - The unread marker needs my read position when the screen opened; nil (never read, or not
///   known) draws no marker rather than calling the whole conversation new.
/// - Ctrl-U and Ctrl-K kill to the start and end of the cursor's line within a message of several lines.
/// - Effects that come from ``update(_:)``, ``prepend(_:hasOlder:)`` and the other inputs
///   without a return value (a mark-read once the newest row shows, a wish for older pages) wait
///   in a queue: ``takeEffects()`` hands them over at once, and ``handle(_:now:)`` and
///   ``tick(now:)`` return them with their own.
struct ChatScreenModel: Sendable {
    let me: UserID
    let conversation: ConversationID
    let hint: PasteHint
    private(set) var rows: Int
    private(set) var columns: Int
    let viewModel: ConversationViewModel
    /// Line counts do not depend on colour: layout in the mutating code uses a plain output.
    let layoutOutput = Output(environment: ["NO_COLOR": "1"])
    /// Rows already laid out, shared by the copies of this model.
    let lineCache = RowLineCache()

    // The conversation.
    private(set) var state: ConversationState?
    /// Stored rows older than the observer's first, read on ``ChatEffect/loadOlderStored(before:)``.
    private(set) var older: [TimelineRow] = []
    /// Whether still older rows are stored, as the last ``prepend(_:hasOlder:)`` said.
    private(set) var olderHasMore: Bool?
    /// The observer's ``ConversationState/olderRevision`` as last seen: when it moves, ``older``
    /// is read again.
    private var olderRevision: Int?
    /// What the screen shows, oldest first: ``older``, then the observer's rows.
    private(set) var timeline: [TimelineRow] = []
    private(set) var rowStates: [RowState] = []
    private(set) var indexByID: [ClientMessageID: Int] = [:]
    private(set) var senderWidth = 0
    private(set) var timeWidth = 0

    // The unread marker.
    let readPositionAtOpen: Int?
    private(set) var markerIndex: Int?
    private(set) var unreadCount = 0

    // Scrolling: nil at the bottom (new rows show at once), else the first line in view.
    struct Anchor: Hashable, Sendable {
        var row: ClientMessageID
        /// Lines of that row above the view (the unread marker counts as its first line).
        var line: Int
        /// The row's sequence: should the row go away, the view stays near where it stood.
        var sequence: Int?
    }
    private(set) var anchor: Anchor?

    // Older history.
    private(set) var loadingStored = false
    private(set) var wished: Int?
    private(set) var answer: RuntimeChannel.OlderAnswer?
    private(set) var answeredStored: Int?
    private(set) var workerRunning: Bool?

    // Reading.
    /// Nil until the terminal reports focus: unknown counts as focused.
    private(set) var focused: Bool?
    private(set) var readWished: Int?

    // The input line and typing.
    private(set) var editor = LineEditor()
    private(set) var lastSent: String?
    private(set) var lastEdit: Int64?
    private(set) var lastSignal: Int64?
    private(set) var typing: [(user: UserID, milliseconds: Int64)] = []
    private(set) var now: Int64 = 0

    // Selection.
    private(set) var selected: ClientMessageID?
    private(set) var showsReceipts = false

    private(set) var queued: [ChatEffect] = []
    /// What went wrong carrying out an effect (a send the disk refused), shown until the next key.
    private(set) var notice: String?

    /// Typing signals go out at most this often while I edit…
    static let typingInterval: Int64 = 3_000
    /// …and stop this long after my last key.
    static let typingQuiet: Int64 = 5_000
    /// Another member's signal shows this long.
    static let typingShown = TypingLine.shown
    /// Lines the mouse wheel scrolls.
    static let wheelLines = 3
    /// Lines of the input shown at most; more scroll with the cursor.
    static let inputLines = 5

    init(me: UserID, conversation: ConversationID, readPosition: Int?, hint: PasteHint, rows: Int, columns: Int) {
        self.me = me
        self.conversation = conversation
        self.readPositionAtOpen = readPosition
        self.hint = hint
        self.rows = max(0, rows)
        self.columns = max(1, columns)
        var model = ConversationViewModel(me: me)
        model.hint = hint
        viewModel = model
    }

    // MARK: Inputs

    /// The observer's newest state of the conversation.
    mutating func update(_ state: ConversationState) {
        if let seen = olderRevision, seen != state.olderRevision, let from = older.first?.sequence {
            let firstCurrent = state.rows.first(where: { $0.sequence != nil })?.sequence
            let before = firstCurrent ?? ((older.last?.sequence ?? from) + 1)
            if from < before { queued.append(.reloadOlderStored(from: from, before: before)) }
        }
        olderRevision = state.olderRevision
        self.state = state
        rebuild()
        settle()
    }

    /// The older stored rows from sequence `from` on, read again (the answer to
    /// ``ChatEffect/reloadOlderStored(from:before:)``), oldest first, in place of those held
    /// there: a redaction or an edit among them shows. Rows below `from` (a page prepended
    /// meanwhile) stay. The view stays on the row the reader looks at.
    mutating func replaceOlder(_ rows: [TimelineRow], from: Int) {
        older = older.filter { ($0.sequence ?? .max) < from } + rows
        rebuild()
        settle()
    }

    /// Older stored rows (the answer to ``ChatEffect/loadOlderStored(before:)``), oldest first,
    /// and whether still older ones are stored. The view stays on the row the reader looks at.
    /// Rows already shown are dropped: a row is never shown twice, or the view, which follows
    /// a row by its ID, could never reach the copy above.
    mutating func prepend(_ older: [TimelineRow], hasOlder: Bool) {
        self.older = older.filter { indexByID[$0.clientMessageID] == nil } + self.older
        olderHasMore = hasOlder
        loadingStored = false
        rebuild()
        settle()
    }

    /// Who else is typing (the runtime channel's entries; mine are never shown), as of `now`.
    mutating func update(typing: [(user: UserID, milliseconds: Int64)], now: Int64) {
        self.typing = typing.filter { $0.user != me }
        self.now = now
        settle()
    }

    /// What the sync worker answered to a wish for older pages, and whether a worker runs.
    mutating func update(olderAnswer: RuntimeChannel.OlderAnswer?, workerRunning: Bool) {
        answer = olderAnswer
        self.workerRunning = workerRunning
        settle()
    }

    mutating func resize(rows: Int, columns: Int) {
        self.rows = max(0, rows)
        self.columns = max(1, columns)
        settle()
    }

    /// Called about every 500 ms: keeps the typing signal going while I type, expires others'
    /// typing, and returns what the other inputs queued.
    mutating func tick(now: Int64) -> [ChatEffect] {
        self.now = now
        var effects: [ChatEffect] = []
        if let lastEdit, now - lastEdit < Self.typingQuiet, !editor.isBlank,
            lastSignal.map({ now - $0 >= Self.typingInterval }) ?? true
        {
            lastSignal = now
            effects.append(.signalTyping)
        }
        settle()
        return takeEffects() + effects
    }

    /// The effects the inputs without a return value queued, in order; the queue is then empty.
    mutating func takeEffects() -> [ChatEffect] {
        defer { queued = [] }
        return queued
    }

    /// Shows `text` above the status line until the next key: an effect that failed.
    mutating func notify(_ text: String) {
        notice = text
    }

    /// One key: what it changes, and what the coordinator should do.
    mutating func handle(_ key: Key, now: Int64) -> [ChatEffect] {
        self.now = now
        notice = nil
        let effects = apply(key)
        settle()
        return effects + takeEffects()
    }

    // MARK: Keys

    private mutating func apply(_ key: Key) -> [ChatEffect] {
        if selected != nil, let effects = applySelected(key) { return effects }
        switch key {
        case .text(let text), .paste(let text):
            editor.insert(text)
            return edited()
        case .newline:
            editor.insert("\n")
            return edited()
        case .backspace:
            return change { $0.deleteBackward() }
        case .delete:
            return change { $0.deleteForward() }
        case .left: editor.moveLeft()
        case .right: editor.moveRight()
        case .home, .control("a"): editor.moveToLineStart()
        case .end, .control("e"): editor.moveToLineEnd()
        case .control("u"): return change { $0.killToLineStart() }
        case .control("w"): return change { $0.killPreviousWord() }
        case .control("k"): return change { $0.killToLineEnd() }
        case .control("c"): return [.quit]
        case .control("d"):
            if editor.isEmpty { return [.quit] }
            return change { $0.deleteForward() }
        case .enter:
            return send()
        case .up:
            if editor.isEmpty {
                if let text = lastSent ?? timeline.last(where: { $0.senderID == me })?.text { editor.set(text) }
            } else {
                _ = editor.moveUpLine()
            }
        case .down: _ = editor.moveDownLine()
        case .pageUp: scroll(by: -page)
        case .pageDown: scroll(by: page)
        case .wheelUp: scroll(by: -Self.wheelLines)
        case .wheelDown: scroll(by: Self.wheelLines)
        case .tab: moveSelection(older: true)
        case .backTab: moveSelection(older: false)
        case .escape: break
        case .focusIn: focused = true
        case .focusOut: focused = false
        case .control: break
        }
        return []
    }

    /// A key while a row is selected, or nil when it acts as without a selection (after
    /// clearing the selection when it edits the line).
    private mutating func applySelected(_ key: Key) -> [ChatEffect]? {
        guard let id = selected, let index = indexByID[id] else {
            clearSelection()
            return nil
        }
        let row = timeline[index]
        switch key {
        case .tab, .up: moveSelection(older: true)
        case .backTab, .down: moveSelection(older: false)
        case .escape:
            if showsReceipts { showsReceipts = false } else { clearSelection() }
        case .text("r"), .enter:
            if case .failed = row.status {
                clearSelection()
                return [.retry(id)]
            }
            if key == .enter, row.sequence != nil { showsReceipts = true }
        case .text("i"):
            if row.sequence != nil { showsReceipts = true }
        case .text, .paste, .newline, .backspace, .delete, .control("u"), .control("w"), .control("k"):
            clearSelection()
            return nil
        default:
            return nil
        }
        return []
    }

    /// An edit that may not change anything (Backspace at the start): typing counts only a change.
    private mutating func change(_ edit: (inout LineEditor) -> Void) -> [ChatEffect] {
        let before = editor
        edit(&editor)
        return editor == before ? [] : edited()
    }

    /// After a key changed the line: the typing signal, at most one per interval.
    private mutating func edited() -> [ChatEffect] {
        lastEdit = now
        guard !editor.isBlank else { return [] }
        if let lastSignal, now - lastSignal < Self.typingInterval { return [] }
        lastSignal = now
        return [.signalTyping]
    }

    private mutating func send() -> [ChatEffect] {
        guard !editor.isBlank else { return [] }
        var text = editor.text
        while text.last == "\n" { text.removeLast() }
        lastSent = text
        editor.clear()
        lastEdit = nil
        // What I sent is what I want to see: back to the bottom, where the pending row appears.
        anchor = nil
        return [.send(text)]
    }

    // MARK: Selection

    /// My failed rows, newest first, then my accepted rows, newest first.
    private var selectable: [ClientMessageID] {
        var failed: [ClientMessageID] = []
        var accepted: [ClientMessageID] = []
        for row in timeline.reversed() where row.senderID == me {
            if case .failed = row.status {
                failed.append(row.clientMessageID)
            } else if row.sequence != nil {
                accepted.append(row.clientMessageID)
            }
        }
        return failed + accepted
    }

    private mutating func moveSelection(older: Bool) {
        let ids = selectable
        guard !ids.isEmpty else { return }
        let next: ClientMessageID
        if let selected, let position = ids.firstIndex(of: selected) {
            next = ids[older ? min(position + 1, ids.count - 1) : max(position - 1, 0)]
        } else {
            next = ids[0]
        }
        if next != selected { showsReceipts = false }
        selected = next
        if let index = indexByID[next] { reveal(index) }
    }

    private mutating func clearSelection() {
        selected = nil
        showsReceipts = false
    }

    // MARK: Rows

    /// The rows from the observer's and the prepended ones; ticks of prepended rows of mine
    /// follow the observer's positions.
    private mutating func rebuild() {
        let current = state?.rows ?? []
        let currentIDs = Set(current.map(\.clientMessageID))
        let firstCurrent = current.first(where: { $0.sequence != nil })?.sequence
        let members = state?.members ?? []
        let kept = older.filter { row in
            !currentIDs.contains(row.clientMessageID)
                && (firstCurrent.map { first in (row.sequence ?? .max) < first } ?? true)
        }.map { row in
            var row = row
            if row.senderID == me, let sequence = row.sequence, let positions = state?.positions {
                row.status = .outgoing(
                    receiptState(sequence: sequence, sender: me, members: members, positions: positions))
            }
            return row
        }
        timeline = kept + current
        rowStates = timeline.map(viewModel.rowState)
        indexByID = [:]
        for (index, row) in timeline.enumerated() { indexByID[row.clientMessageID] = index }
        senderWidth = (members.map(\.rawValue.count) + timeline.map(\.senderID.rawValue.count)).max() ?? 0
        timeWidth = rowStates.map { TerminalSafe.visible($0.time).count }.max() ?? 0
        markerIndex = nil
        unreadCount = 0
        if let read = readPositionAtOpen {
            for (index, row) in timeline.enumerated() where row.status == .incoming && (row.sequence ?? 0) > read {
                if markerIndex == nil { markerIndex = index }
                unreadCount += 1
            }
        }
        if let selected {
            let row = indexByID[selected].map { timeline[$0] }
            if row == nil || row?.status == .pending { clearSelection() }
        }
    }

    var firstSequence: Int? { timeline.first(where: { $0.sequence != nil })?.sequence }

    /// Whether rows older than the first are stored (the last prepend's word, else the observer's).
    var hasOlderStored: Bool { olderHasMore ?? state?.hasOlder ?? false }

    // MARK: After every input

    /// Keeps the anchor valid, then asks for older rows when the top shows and marks read
    /// when the newest row shows.
    private mutating func settle() {
        normalise()
        let view = window(text: layoutText, height: bodyHeight)
        let topVisible = timeline.isEmpty || (!view.lines.isEmpty && view.top.row == 0 && view.top.line == 0)
        if topVisible { reachedTop() }
        // The worker's page is read only while it is still the page above the first row: the
        // observer may have shown its segment first, and the screen read it then (reachedTop).
        if let wished, case .stored(let before)? = answer, before == wished, answeredStored != wished, !loadingStored,
            before == firstSequence
        {
            answeredStored = wished
            loadingStored = true
            queued.append(.loadOlderStored(before: before))
        }
        if focused != false, let newest = timeline.lastIndex(where: { $0.sequence != nil }),
            let sequence = timeline[newest].sequence,
            view.lines.last(where: { $0.row == newest }).map({ $0.isLast }) == true
        {
            let already = max(readPositionAtOpen ?? 0, state?.positions?[me].readUpTo ?? 0, readWished ?? 0)
            if sequence > already {
                readWished = sequence
                queued.append(.markRead(upTo: sequence))
            }
        }
    }

    private mutating func reachedTop() {
        guard !loadingStored, let first = firstSequence else { return }
        if hasOlderStored {
            loadingStored = true
            queued.append(.loadOlderStored(before: first))
            return
        }
        guard first > 1, wished != first else { return }
        wished = first
        answer = nil
        queued.append(.wantOlder(before: first))
    }

    // MARK: Scrolling

    /// Lines PageUp and PageDown move: the body's height less one, so one line stays in view.
    private var page: Int { max(1, bodyHeight - 1) }

    private mutating func scroll(by delta: Int) {
        guard !timeline.isEmpty, bodyHeight > 0 else { return }
        let start = top
        var index = start.row
        var line = start.line + delta
        if delta < 0 {
            if start.row == 0, start.line == 0, wished == firstSequence, case .failed? = answer {
                // Asking again at the top after a failure.
                wished = nil
                answer = nil
            }
            while line < 0, index > 0 {
                index -= 1
                line += lineCount(index)
            }
            line = max(0, line)
        } else {
            while index < timeline.count - 1, line >= lineCount(index) {
                line -= lineCount(index)
                index += 1
            }
            line = min(line, lineCount(index) - 1)
        }
        anchor = Anchor(row: timeline[index].clientMessageID, line: line, sequence: timeline[index].sequence)
        normalise()
    }

    /// The first line in view: the anchor's, or at the bottom the one the window starts with.
    private var top: (row: Int, line: Int) {
        if let anchor, let index = indexByID[anchor.row] { return (index, anchor.line) }
        return window(text: layoutText, height: bodyHeight).top
    }

    /// Scrolls so row `index` is wholly in view (its top when taller than the view).
    private mutating func reveal(_ index: Int) {
        let height = bodyHeight
        guard height > 0 else { return }
        let view = window(text: layoutText, height: height)
        let count = lineCount(index)
        let shown = view.lines.filter { $0.row == index }.count
        if shown == count || (shown == height && count > height) { return }
        if let first = view.lines.first?.row, index <= first {
            anchor = anchorAt(index)
        } else {
            var total = count
            var row = index
            while row > 0, total < height {
                row -= 1
                total += lineCount(row)
            }
            anchor = count > height ? anchorAt(index) : anchorAt(row, line: max(0, total - height))
        }
        normalise()
    }

    private func anchorAt(_ index: Int, line: Int = 0) -> Anchor {
        Anchor(row: timeline[index].clientMessageID, line: line, sequence: timeline[index].sequence)
    }

    /// Back to the bottom when everything from the anchor down fits; when the anchor's row is
    /// gone, on the first row from its sequence on (or the bottom).
    private mutating func normalise() {
        guard var current = anchor else { return }
        if indexByID[current.row] == nil {
            guard let sequence = current.sequence,
                let index = timeline.firstIndex(where: { ($0.sequence ?? .max) >= sequence })
            else {
                anchor = nil
                return
            }
            current = anchorAt(index)
            anchor = current
        }
        guard let index = indexByID[current.row] else { return }
        let clamped = min(current.line, lineCount(index) - 1)
        if clamped != current.line { anchor?.line = clamped }
        let height = bodyHeight
        var remaining = -clamped
        var row = index
        while row < timeline.count, remaining <= height {
            remaining += lineCount(row)
            row += 1
        }
        if remaining <= height { anchor = nil }
    }
}
