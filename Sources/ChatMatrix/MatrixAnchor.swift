import ChatDomain

/// `org.chatdir.anchor`, the room account data that fixes a room's numbering for every device
/// of the account: the message event `eventID` is sequence `sequence`; newer messages count up
/// from it, older ones down.
public struct MatrixAnchor: Sendable, Hashable {
    public var eventID: MatrixEventID
    /// 1…``Message/maxSequence``, what a store can hold.
    public var sequence: Int

    /// The account data type the anchor is stored under.
    public static let type = "org.chatdir.anchor"

    public init(eventID: MatrixEventID, sequence: Int) {
        self.eventID = eventID
        self.sequence = sequence
    }

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        eventID = try field.required("event_id").eventID()
        sequence = try field.required("sequence").integer(in: 1...Message.maxSequence)
    }

    /// The anchor among a room's account data events (as a `/sync` gives them), nil when
    /// there is none; one whose content is not an anchor is refused.
    public init?(in events: [MatrixAccountDataEvent]) throws(MatrixDecodingError) {
        guard let event = events.last(where: { $0.type == Self.type }) else { return nil }
        try self.init(MatrixField(event.content))
    }

    /// The content as JSON.
    public var json: JSONValue { .object([("event_id", .string(eventID.rawValue)), ("sequence", .integer(sequence))]) }
}
