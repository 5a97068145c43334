import ChatDomain

/// Names and paths of format v1 (docs/FORMAT.md), in one place.
public enum StoreLayout {
    public static let formatVersion = 1
    public static let defaultSegmentSize = 100
    public static let manifest = "chatdir.json"
    public static let conversations = "conversations"
    public static let conversationInfo = "conversation.json"
    public static let messages = "messages"
    public static let positions = "positions.json"
    public static let outbox = "outbox"
    public static let readPosition = "read.json"
    /// `outbox/create.json`: a conversation started here that the server has not accepted yet.
    public static let creation = "create.json"
    public static let lock = ".lock"
    /// In the store root: the sync worker's figures (``SyncStatusFile``), hidden and per device.
    public static let syncStatus = ".sync-status"
    /// In the store root: the rooms I am invited to (``InvitationsFile``), hidden and per device.
    public static let invitations = ".invitations"
    /// In the store root: where conversations started here went (``StartedFile``), hidden and per device.
    public static let started = ".started"
    /// In a conversation's directory: this device's sync marker (``SequenceMarkerFile``), written only
    /// by ``StoreWriter/recordCaughtUp(through:in:)``.
    public static let caughtUp = ".caught-up"
    /// In a conversation's directory of a store whose numbering starts at an anchor (Matrix):
    /// the first sync's older history is stored (``SequenceMarkerFile``), written only by
    /// ``StoreWriter/recordHistoryComplete(from:in:)``.
    public static let historyComplete = ".history-complete"
    /// In `messages/`: the name of the newest segment file, so readers need not list the directory.
    public static let newestHint = ".newest"
    /// The largest sequence the format holds. Segment names are 10 digits, so the last sequence
    /// of a segment must stay ≤ 9,999,999,999 whatever the segment size (at most
    /// ``Manifest/maxSegmentSize``): 9,999,999,999 − 100,000 + 1, a multiple of every size's
    /// boundary rule. Larger sequences are refused, never stored where no reader looks.
    public static let maxSequence = Message.maxSequence
}
