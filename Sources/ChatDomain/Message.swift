/// A message the server accepted: it has its place in the conversation's order.
public struct Message: Hashable, Sendable {
    /// The server's per-conversation counter; the one order every device shows.
    public var sequence: Int
    public var clientMessageID: ClientMessageID
    public var senderID: UserID
    public var text: String
    /// The server's timestamp, kept exactly as the server wrote it (never the local clock).
    public var sentAt: String

    public init(sequence: Int, clientMessageID: ClientMessageID, senderID: UserID, text: String, sentAt: String) {
        self.sequence = sequence
        self.clientMessageID = clientMessageID
        self.senderID = senderID
        self.text = text
        self.sentAt = sentAt
    }
}

/// Whether an outbox message is still waiting or was refused by the server.
public enum SendState: String, Hashable, Sendable, CaseIterable {
    /// Waiting for the sync worker; retried automatically after temporary failures.
    case pending
    /// Rejected by the server; waits for the user to retry it by hand.
    case failed
}

/// A message written on this device that the server has not accepted yet.
public struct OutboxEntry: Hashable, Sendable {
    /// Queue position: smaller goes first. Nanoseconds since 1970 when queued (or re-queued).
    public var ordinal: UInt64
    public var clientMessageID: ClientMessageID
    public var text: String
    /// When the user wrote it, by this device's clock (ISO 8601, UTC). Never shared.
    public var createdAt: String
    public var state: SendState
    /// How many delivery attempts were made.
    public var attempts: Int
    /// The server's reason, when ``state`` is ``SendState/failed``.
    public var error: String?

    public init(ordinal: UInt64, clientMessageID: ClientMessageID, text: String, createdAt: String,
                state: SendState = .pending, attempts: Int = 0, error: String? = nil) {
        self.ordinal = ordinal
        self.clientMessageID = clientMessageID
        self.text = text
        self.createdAt = createdAt
        self.state = state
        self.attempts = attempts
        self.error = error
    }
}
