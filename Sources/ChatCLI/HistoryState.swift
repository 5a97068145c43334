/// Whether there is more history above the first row, and how to see it.
public enum HistoryState: Hashable, Sendable {
    /// The first row is the conversation's first message (sequence 1), or nothing is stored.
    case complete
    /// Nothing older is stored, but the first stored message is not the conversation's first:
    /// `chatdir history CONV` fetches older pages from the server.
    case olderOnServer
    /// Older messages are stored: `chatdir view CONV --before <sequence>` shows them.
    case olderStored(before: Int?)
}
