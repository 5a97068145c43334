/// Whether there is more history above the first row, and how to see it.
public enum HistoryState: Hashable, Sendable {
    /// The first row is the conversation's first stored message.
    case complete
    /// Older messages are stored: `chatdir view CONV --before <sequence>` shows them.
    case olderStored(before: Int?)
}
