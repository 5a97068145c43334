/// Everything the live screen draws, decided here so the screen decides nothing.
public struct ConversationViewState: Hashable, Sendable {
    public var title: String
    /// `c1 · alice, bob`
    public var subtitle: String
    /// The newest rows, oldest first (at most the number asked for).
    public var rows: [RowState]
    /// All rows followed, of which ``rows`` are the newest.
    public var totalRows: Int
    public var history: HistoryState
    /// Pending and failed counts, receipts, whether a sync worker runs: one line.
    public var status: String
    /// Files that could not be read, each naming the file and what to do.
    public var problems: [String]
    /// `bob is typing…` while another member types (from the runtime channel); nil otherwise.
    public var typing: String? = nil
}
