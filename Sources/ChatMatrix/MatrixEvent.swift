/// A room event as `/sync`, `/messages` and `/context` give it (the client-server format, with
/// `room_id` left out or ignored): who sent what, when, and for state events which state key.
public struct MatrixEvent: Sendable, Hashable {
    /// The event type (`m.room.message`, `m.room.member`, …; any other type is kept by name).
    public var type: String
    public var eventID: MatrixEventID
    public var sender: MatrixUserID
    /// Milliseconds since 1970 on the sender's homeserver clock.
    public var originServerTimestamp: Int
    /// Present on state events only (the empty string is a valid state key).
    public var stateKey: String?
    public var content: MatrixEventContent
    /// `unsigned.transaction_id`: the txnId the event was sent with, shown only to the sending device.
    public var transactionID: String?
    /// Whether `unsigned.redacted_because` is present: the server redacted the event.
    public var isRedacted: Bool
    /// The event's place in the room's graph, given only in the federation format (a `/sync`
    /// filter's `"event_format":"federation"`): its depth, which orders `/messages`, and the
    /// events it was sent after. Nil and empty in the client format.
    public var depth: Int?
    public var previousEvents: [MatrixEventID]

    public init(
        type: String, eventID: MatrixEventID, sender: MatrixUserID, originServerTimestamp: Int,
        stateKey: String? = nil, content: MatrixEventContent, transactionID: String? = nil, isRedacted: Bool = false,
        depth: Int? = nil, previousEvents: [MatrixEventID] = []
    ) {
        self.type = type
        self.eventID = eventID
        self.sender = sender
        self.originServerTimestamp = originServerTimestamp
        self.stateKey = stateKey
        self.content = content
        self.transactionID = transactionID
        self.isRedacted = isRedacted
        self.depth = depth
        self.previousEvents = previousEvents
    }

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        let type = try field.required("type") { field throws(MatrixDecodingError) in try field.typeName() }
        self.type = type
        eventID = try field.required("event_id") { field throws(MatrixDecodingError) in try field.eventID() }
        sender = try field.required("sender") { field throws(MatrixDecodingError) in try field.userID() }
        originServerTimestamp = try field.required("origin_server_ts") { field throws(MatrixDecodingError) in
            try field.integer()
        }
        stateKey = try field.optional("state_key") { field throws(MatrixDecodingError) in try field.string() }
        let unsigned = try field.optional("unsigned") { field throws(MatrixDecodingError) in try field.object() }
        transactionID = try unsigned?.optional("transaction_id") { field throws(MatrixDecodingError) in
            try field.string(maxBytes: MatrixLimits.identifierBytes)
        }
        isRedacted = try unsigned?.optional("redacted_because") != nil
        (depth, previousEvents) = Self.place(in: field)
        let topLevelRedacts = try field.optional("redacts") { field throws(MatrixDecodingError) in try field.eventID() }
        let content = try field.required("content").object()
        self.content = MatrixEventContent(type: type, content: content, topLevelRedacts: topLevelRedacts)
    }

    /// `depth` and `prev_events`, when both are there and well formed; else none. They serve
    /// one shortcut (a live catch-up without `/messages`), and any member's homeserver makes
    /// them: one out of range turns the shortcut off for that event instead of refusing the
    /// whole answer.
    private static func place(in field: MatrixField) -> (depth: Int?, previous: [MatrixEventID]) {
        do {
            guard let depth = try field.optional("depth", { field throws(MatrixDecodingError) in try field.integer() }),
                let previous = try field.optional(
                    "prev_events",
                    { field throws(MatrixDecodingError) in
                        try field.array(max: MatrixLimits.previousEvents) { field throws(MatrixDecodingError) in
                            try field.eventID()
                        }
                    })
            else { return (nil, []) }
            return (depth, previous)
        } catch {
            return (nil, [])
        }
    }
}

/// A state event as an invite shows it (`invite_state`): no event ID and no time stamp.
public struct MatrixStrippedStateEvent: Sendable, Hashable {
    public var type: String
    public var stateKey: String
    public var sender: MatrixUserID
    public var content: MatrixEventContent

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        type = try field.required("type") { field throws(MatrixDecodingError) in try field.typeName() }
        stateKey = try field.required("state_key") { field throws(MatrixDecodingError) in try field.string() }
        sender = try field.required("sender") { field throws(MatrixDecodingError) in try field.userID() }
        let content = try field.required("content").object()
        self.content = MatrixEventContent(type: type, content: content, topLevelRedacts: nil)
    }
}
