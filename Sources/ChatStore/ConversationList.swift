/// The conversation list as ``StoreObserver/summaries()`` sends it: every conversation, newest
/// activity first, and why changes are found by polling when they are.
public struct ConversationList: Hashable, Sendable {
    public var conversations: [ConversationSummary]
    /// Why changes are found by looking at the files every second rather than told by inotify
    /// (a kernel limit reached); nil while inotify sees everything.
    public var polling: WatchFallback?
    /// The sync worker: connected or reconnecting (and why), the conversations it stopped on.
    public var worker: SyncWorkerState
    /// The rooms I am invited to (Matrix), as `.invitations` holds them.
    public var invitations: [Invitation]

    public init(
        conversations: [ConversationSummary], polling: WatchFallback? = nil,
        worker: SyncWorkerState = SyncWorkerState(),
        invitations: [Invitation] = []
    ) {
        self.conversations = conversations
        self.polling = polling
        self.worker = worker
        self.invitations = invitations
    }
}
