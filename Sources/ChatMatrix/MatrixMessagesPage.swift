/// The answer to `GET /rooms/{room}/messages`: one page of a room's events in the direction
/// asked for (`b`: newest first).
public struct MatrixMessagesPage: Sendable, Hashable {
    public var chunk: [MatrixEvent]
    /// The token this page started at.
    public var start: String
    /// The token for the next page; nil when this page is the last (the room's beginning, going back).
    public var end: String?
    /// State events needed to show `chunk` (with lazy-loaded members).
    public var state: [MatrixEvent]

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        chunk = try field.required("chunk").array(max: MatrixLimits.eventsPerPage, MatrixEvent.init)
        start = try field.required("start").token()
        end = try field.optional("end")?.token()
        state = try field.optional("state")?.array(max: MatrixLimits.stateEventsPerRoom, MatrixEvent.init) ?? []
    }
}

/// The answer to `GET /rooms/{room}/context/{event}`: an event with some of the events around it.
public struct MatrixEventContext: Sendable, Hashable {
    public var event: MatrixEvent
    /// Newest first (the order of `dir=b`).
    public var eventsBefore: [MatrixEvent]
    /// Oldest first.
    public var eventsAfter: [MatrixEvent]
    /// The token to page back from `eventsBefore`.
    public var start: String?
    /// The token to page forward from `eventsAfter`.
    public var end: String?
    public var state: [MatrixEvent]

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        event = try field.required("event", MatrixEvent.init)
        eventsBefore =
            try field.optional("events_before")?.array(max: MatrixLimits.eventsPerPage, MatrixEvent.init) ?? []
        eventsAfter = try field.optional("events_after")?.array(max: MatrixLimits.eventsPerPage, MatrixEvent.init) ?? []
        start = try field.optional("start")?.token()
        end = try field.optional("end")?.token()
        state = try field.optional("state")?.array(max: MatrixLimits.stateEventsPerRoom, MatrixEvent.init) ?? []
    }
}
