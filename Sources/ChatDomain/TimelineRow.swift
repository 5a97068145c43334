/// One row of a conversation as every screen shows it: an accepted message or an outbox entry.
public struct TimelineRow: Hashable, Sendable {
    /// Where the row's status comes from.
    public enum Status: Hashable, Sendable {
        /// Someone else's message: no tick.
        case incoming
        /// My message, accepted by the server, with its receipt state.
        case outgoing(ReceiptState)
        /// My message, still in the outbox.
        case pending
        /// My message, refused by the server, with the reason.
        case failed(reason: String?)
    }

    public var clientMessageID: ClientMessageID
    /// Nil while the message is in the outbox.
    public var sequence: Int?
    public var senderID: UserID
    public var text: String
    /// The server's `sentAt`, or the outbox's `createdAt` for a message not accepted yet.
    public var time: String
    public var status: Status
    /// What the message is when not plain text (Matrix stores only).
    public var kind: MessageKind?
    /// Whether ``text`` is an edit's, the newest by the sender (Matrix stores only).
    public var edited: Bool
    /// Whether the message was redacted (Matrix stores only): then ``text`` is empty.
    public var redacted: Bool

    public init(
        clientMessageID: ClientMessageID, sequence: Int?, senderID: UserID, text: String, time: String, status: Status,
        kind: MessageKind? = nil, edited: Bool = false, redacted: Bool = false
    ) {
        self.clientMessageID = clientMessageID
        self.sequence = sequence
        self.senderID = senderID
        self.text = text
        self.time = time
        self.status = status
        self.kind = kind
        self.edited = edited
        self.redacted = redacted
    }
}
