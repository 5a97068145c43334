/// The one JSON form of a message, shared by the store's segment files and wire contract v1:
/// `{"clientMessageId":…,"senderId":…,"sentAt":…,"sequence":…,"text":…}`, keys sorted, no
/// spaces, minimal escapes. The two formats agree on purpose (a segment line is the bytes the
/// server sent), so the record is written here, below both, and nowhere else. A Matrix store's
/// records add `eventId` and, when they apply, `kind`, `redacted` and `replaces`, in the same
/// sorted order; a record without them is byte for byte a wire v1 record.
extension Message {
    /// The keys of a wire v1 message record, for decoders that refuse any other key.
    public static let wireRecordKeys: [String] = ["clientMessageId", "senderId", "sentAt", "sequence", "text"]

    /// The keys only a Matrix store's records have.
    public static let matrixRecordKeys: [String] = ["eventId", "kind", "redacted", "replaces"]

    /// Every key a message record may have (a Matrix store's), sorted.
    public static let recordKeys: [String] = (wireRecordKeys + matrixRecordKeys).sorted()

    /// The largest sequence chatdir accepts anywhere: the store's segment names have 10 digits,
    /// so the last sequence of a segment must stay ≤ 9,999,999,999 whatever the segment size (at
    /// most 100,000): 9,999,999,999 − 100,000 + 1, a multiple of every size's boundary rule.
    /// JSON would carry up to 2^53, but what cannot be stored where readers look must not be
    /// accepted from the network either.
    public static let maxSequence = 9_999_900_000

    /// Writes this message's record in canonical form (the bytes of a segment line, without the comma).
    public func writeRecord(into writer: inout JSONWriter) {
        writer.raw("{")
        writer.key("clientMessageId")
        writer.write(clientMessageID.rawValue)
        if let eventID {
            writer.raw(",")
            writer.key("eventId")
            writer.write(eventID.rawValue)
        }
        if let kind {
            writer.raw(",")
            writer.key("kind")
            writer.write(kind.rawValue)
        }
        if redacted {
            writer.raw(",")
            writer.key("redacted")
            writer.raw("true")
        }
        if let replaces {
            writer.raw(",")
            writer.key("replaces")
            writer.write(replaces.rawValue)
        }
        writer.raw(",")
        writer.key("senderId")
        writer.write(senderID.rawValue)
        writer.raw(",")
        writer.key("sentAt")
        writer.write(sentAt)
        writer.raw(",")
        writer.key("sequence")
        writer.write(sequence)
        writer.raw(",")
        writer.key("text")
        writer.write(text)
        writer.raw("}")
    }
}
