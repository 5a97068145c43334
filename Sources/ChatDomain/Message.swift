/// A message the server accepted: it has its place in the conversation's order.
public struct Message: Hashable, Sendable {
    /// The server's per-conversation counter; the one order every device shows.
    public var sequence: Int
    public var clientMessageID: ClientMessageID
    public var senderID: UserID
    public var text: String
    /// The server's timestamp, kept exactly as the server wrote it (never the local clock).
    public var sentAt: String

    /// The longest `sentAt`, in bytes: a timestamp, never a place to carry text.
    public static let maxSentAtBytes = 64

    /// Whether `text` can be a `sentAt`: at most ``maxSentAtBytes`` bytes, no control characters.
    /// The one rule for what a server sends and what a store holds.
    public static func isTimestampShaped(_ text: String) -> Bool {
        text.utf8.count <= maxSentAtBytes && text.unicodeScalars.allSatisfy { $0.value >= 0x20 }
    }

    public init(sequence: Int, clientMessageID: ClientMessageID, senderID: UserID, text: String, sentAt: String) {
        self.sequence = sequence
        self.clientMessageID = clientMessageID
        self.senderID = senderID
        self.text = text
        self.sentAt = sentAt
    }
}
