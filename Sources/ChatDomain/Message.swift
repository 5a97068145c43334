/// A message the server accepted: it has its place in the conversation's order.
public struct Message: Hashable, Sendable {
    /// The server's per-conversation counter; the one order every device shows.
    public var sequence: Int
    public var clientMessageID: ClientMessageID
    public var senderID: UserID
    public var text: String
    /// The server's timestamp, kept exactly as the server wrote it (never the local clock).
    public var sentAt: String
    /// The Matrix event this record is, in a Matrix store's records (every one has it); nil in
    /// wire v1, which has no such thing.
    public var eventID: EventID?
    /// What the message is when not plain text (Matrix stores only): nil for text.
    public var kind: MessageKind?
    /// Whether the event was redacted (Matrix stores only): then the text is empty, there is no
    /// kind and no edit, and the client message ID is the one derived from the event ID
    /// (``ClientMessageID/derived(fromEventID:)``), so every device writes the same record.
    public var redacted: Bool
    /// The event this one edits (Matrix stores only): an edit is a record of its own, and its
    /// text is the edited message's new text.
    public var replaces: EventID?

    /// The longest `sentAt`, in bytes: a timestamp, never a place to carry text. The wire and
    /// the store's records both hold it to this.
    public static let maxSentAtBytes = 64

    public init(
        sequence: Int, clientMessageID: ClientMessageID, senderID: UserID, text: String, sentAt: String,
        eventID: EventID? = nil, kind: MessageKind? = nil, redacted: Bool = false, replaces: EventID? = nil
    ) {
        self.sequence = sequence
        self.clientMessageID = clientMessageID
        self.senderID = senderID
        self.text = text
        self.sentAt = sentAt
        self.eventID = eventID
        self.kind = kind
        self.redacted = redacted
        self.replaces = replaces
    }
}

extension Message {
    /// This message's record once its event is redacted: same event, sequence, sender and time,
    /// empty text, no kind, no edit, the client message ID derived from the event ID. The same
    /// bytes whether a device stored the original first or only ever saw the redacted event.
    /// nil without an event ID (wire v1 has no redactions).
    public var redactedRecord: Message? {
        eventID.map { Message.redacted(eventID: $0, sequence: sequence, senderID: senderID, sentAt: sentAt) }
    }

    /// The one record of redacted event `eventID`: what is left of it, and the client message ID
    /// derived from its event ID.
    public static func redacted(eventID: EventID, sequence: Int, senderID: UserID, sentAt: String) -> Message {
        Message(
            sequence: sequence, clientMessageID: .derived(fromEventID: eventID), senderID: senderID, text: "",
            sentAt: sentAt, eventID: eventID, redacted: true)
    }
}
