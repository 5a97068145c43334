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

    public init(
        ordinal: UInt64, clientMessageID: ClientMessageID, text: String, createdAt: String,
        state: SendState = .pending, attempts: Int = 0, error: String? = nil
    ) {
        self.ordinal = ordinal
        self.clientMessageID = clientMessageID
        self.text = text
        self.createdAt = createdAt
        self.state = state
        self.attempts = attempts
        self.error = error
    }
}
