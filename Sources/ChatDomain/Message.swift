/// A message the server accepted: it has its place in the conversation's order.
public struct Message: Hashable, Sendable {
    /// The server's per-conversation counter; the one order every device shows.
    public var sequence: Int
    public var clientMessageID: ClientMessageID
    public var senderID: UserID
    public var text: String
    /// The server's timestamp, kept exactly as the server wrote it (never the local clock).
    public var sentAt: String

    /// The longest `sentAt`, in bytes: a timestamp, never a place to carry text. The wire and
    /// the store's records both hold it to this.
    public static let maxSentAtBytes = 64

    public init(sequence: Int, clientMessageID: ClientMessageID, senderID: UserID, text: String, sentAt: String) {
        self.sequence = sequence
        self.clientMessageID = clientMessageID
        self.senderID = senderID
        self.text = text
        self.sentAt = sentAt
    }
}
