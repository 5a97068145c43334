import ChatDomain

/// How far a long catch-up or history fetch got in one conversation, for a progress display.
/// Counts only: never message text.
public struct SyncProgress: Sendable, Equatable, CustomStringConvertible {
    public enum Work: Sendable, Equatable {
        /// Fetching newer messages (`sync`, the live worker's catch-up).
        case catchUp
        /// Fetching older messages (`history`).
        case history
    }

    public var conversation: ConversationID
    public var work: Work
    /// Messages stored so far by this fetch.
    public var fetched: Int
    /// Messages still to fetch, when known: up to the server's newest sequence when catching up,
    /// down to sequence 1 (or the page limit) when fetching history.
    public var remaining: Int?

    public init(conversation: ConversationID, work: Work, fetched: Int, remaining: Int?) {
        self.conversation = conversation
        self.work = work
        self.fetched = fetched
        self.remaining = remaining
    }

    /// `dinner: 5000 messages caught up, 95000 to go`: what a log line says.
    public var description: String {
        let verb = work == .catchUp ? "caught up" : "older fetched"
        return "\(conversation): \(fetched) message\(fetched == 1 ? "" : "s") \(verb)"
            + (remaining.map { ", \($0) to go" } ?? "")
    }
}
