import ChatDomain

/// One row as a screen draws it: the time already formatted, the tick still a status (RowText
/// turns it into words and colour).
public struct RowState: Hashable, Sendable {
    public var clientMessageID: ClientMessageID
    public var sequence: Int?
    /// Local time: `10:02` today, `2026-11-28 10:02` on other days.
    public var time: String
    public var senderID: UserID
    /// What the screen shows (``TimelineRow/shownText``), not yet made terminal-safe.
    public var text: String
    public var status: TimelineRow.Status
    /// A redacted message: its fixed text is drawn dim where the terminal styles things.
    public var redacted = false
}
