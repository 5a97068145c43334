import ChatDomain

/// The frame `view --follow` draws, for callers outside the CLI (the latency benchmark):
/// the same layout as the terminal, without colour.
public enum FollowFrame {
    public static func lines(_ view: ConversationViewState, conversation: ConversationID, rows: Int, columns: Int)
        -> [String]
    {
        ConversationScreen(output: Output(environment: ["NO_COLOR": "1"]), conversation: conversation).frame(
            view, rows: rows, columns: columns)
    }
}
