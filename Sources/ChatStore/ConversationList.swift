/// The conversation list as ``StoreObserver/summaries()`` sends it: every conversation, newest
/// activity first, and why changes are found by polling when they are.
public struct ConversationList: Hashable, Sendable {
    public var conversations: [ConversationSummary]
    /// Why changes are found by looking at the files every second rather than told by inotify
    /// (a kernel limit reached); nil while inotify sees everything.
    public var polling: WatchFallback?

    public init(conversations: [ConversationSummary], polling: WatchFallback? = nil) {
        self.conversations = conversations
        self.polling = polling
    }
}
