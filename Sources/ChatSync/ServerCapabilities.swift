/// What a protocol has, where protocols differ; the engine leaves out what a server lacks.
struct ServerCapabilities: Sendable, Equatable {
    /// Members have delivered positions (wire v1's `deliveredUpTo`): without them the engine
    /// never posts one and never records one, so no message shows ✓✓ delivered.
    var deliveredPositions: Bool
    /// Every member's positions can be asked for (wire v1's receipts); without it they arrive
    /// only as live updates.
    var positionsOnRequest: Bool
    /// A first catch-up starts at an anchor in the middle of the history, not at its beginning
    /// (Matrix's numbering): passes page back for older messages too, until
    /// ``SyncEngine/Options/firstSyncHistory`` below the anchor are stored
    /// (``SyncEngine/completeFirstHistory(_:)``, ``ServerSession/historyAnchor(_:)``).
    var anchoredNumbering = false
    /// The server knows a client message ID it accepted for good (wire v1), so a retry is never
    /// a second message. Without it (Matrix: a transaction ID is remembered about a day), the
    /// live worker catches a conversation up before its first delivery to it and before a retry
    /// after a failed one, so a message an earlier attempt got onto the server (the worker died,
    /// or the answer was lost) is found there instead of sent again.
    var remembersClientMessageIDs = true
    /// A member can leave, or be removed from, a conversation the store still holds (Matrix):
    /// the server stops listing it, and a pass offers its queued messages anyway, so the
    /// server's refusal marks each failed with its words instead of leaving it pending, unsaid,
    /// for ever (``SyncEngine/offerUnlistedOutboxes(besides:report:)``).
    var membershipEnds = false
}
