import ChatDomain
import ChatStore

/// Turns the observer's ``ConversationState`` into a ``ConversationViewState``: formatted times,
/// history and status line. Pure apart from the time zone, so it is testable without a terminal.
public struct ConversationViewModel: Sendable {
    public let me: UserID
    let time: TimeText
    /// How the status line's retry hint names the store.
    var hint = PasteHint.defaultStore

    public init(me: UserID) {
        self.init(me: me, time: TimeText())
    }

    init(me: UserID, time: TimeText) {
        self.me = me
        self.time = time
    }

    /// The view state for `state`, formatting only the newest `visibleRows` rows (all when nil):
    /// with 10,000 rows followed, a redraw formats a screenful, not the history.
    public func viewState(_ state: ConversationState, visibleRows: Int? = nil) -> ConversationViewState {
        let shown = visibleRows.map { state.rows.suffix(max(0, $0)) } ?? state.rows[...]
        let rows = shown.map(rowState)
        let firstSequence = state.rows.first(where: { $0.sequence != nil })?.sequence
        return ConversationViewState(
            title: state.info?.title ?? state.id.rawValue,
            subtitle: "\(state.id) · " + state.members.map(\.rawValue).joined(separator: ", "),
            rows: rows,
            totalRows: state.rows.count,
            history: state.hasOlder
                ? .olderStored(before: firstSequence) : (firstSequence ?? 1) > 1 ? .olderOnServer : .complete,
            status: status(state),
            problems: state.worker.stopped(state.id).map {
                [SyncWorkerText.stopped($0, conversation: state.id, hint: hint)] + state.problems
            } ?? state.problems
        )
    }

    func rowState(_ row: TimelineRow) -> RowState {
        RowState(
            clientMessageID: row.clientMessageID, sequence: row.sequence, time: time.format(row.time),
            senderID: row.senderID, text: row.shownText, status: row.status, redacted: row.redacted)
    }

    /// `2 pending · 1 failed (chatdir retry c1 --all) · receipts not loaded yet · sync worker connected`,
    /// after why changes are looked for every second, when inotify could not watch (first, so a
    /// narrow screen still shows it).
    func status(_ state: ConversationState) -> String {
        var parts: [String] = []
        if let polling = state.polling { parts.append(polling.summary) }
        if !state.exists { parts.append("the conversation's directory is gone") }
        if state.pending > 0 { parts.append("\(state.pending) pending") }
        if state.failed > 0 { parts.append("\(state.failed) failed (\(hint.command("retry", "\(state.id) --all")))") }
        if !state.positionsLoaded { parts.append("receipts not loaded yet") }
        parts.append(SyncWorkerText.summary(pid: state.syncWorker, state.worker, pending: state.pending))
        return parts.joined(separator: " · ")
    }
}
