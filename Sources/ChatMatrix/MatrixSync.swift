/// A `/sync` answer: what changed since the `since` token, room by room, and the token to
/// give next time.
public struct MatrixSync: Sendable, Hashable {
    /// The `since` of the next `/sync`.
    public var nextBatch: String
    /// `rooms.join`, in the order the server wrote them.
    public var joined: [MatrixJoinedRoom]
    /// `rooms.invite`.
    public var invited: [MatrixInvitedRoom]
    /// `rooms.leave` (left, kicked or banned).
    public var left: [MatrixLeftRoom]
    /// The account's global `account_data` events.
    public var accountData: [MatrixAccountDataEvent]

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        nextBatch = try field.required("next_batch").token()
        let rooms = try field.optional("rooms")?.object()
        joined = try Self.rooms(rooms, "join") { id, field throws(MatrixDecodingError) in
            try MatrixJoinedRoom(id: id, field)
        }
        invited = try Self.rooms(rooms, "invite") { id, field throws(MatrixDecodingError) in
            try MatrixInvitedRoom(id: id, field)
        }
        left = try Self.rooms(rooms, "leave") { id, field throws(MatrixDecodingError) in
            try MatrixLeftRoom(id: id, field)
        }
        accountData = try field.optional("account_data", MatrixAccountDataEvent.list) ?? []
    }

    /// The rooms of one section of `rooms`, each key a room ID.
    private static func rooms<Room>(
        _ rooms: MatrixField?, _ section: String,
        _ read: (MatrixRoomID, MatrixField) throws(MatrixDecodingError) -> Room
    ) throws(MatrixDecodingError) -> [Room] {
        guard let section = try rooms?.optional(section) else { return [] }
        var result: [Room] = []
        for (key, room) in try section.members(max: MatrixLimits.roomsPerSync) {
            let id: MatrixRoomID
            do { id = try MatrixRoomID(key) } catch { throw room.refuse(error.description) }
            result.append(try read(id, try room.object()))
        }
        return result
    }

    /// The `events` of a section such as `state` or `ephemeral`, at most `max` of them.
    static func events<Event>(
        _ container: MatrixField, _ key: String, max: Int, _ read: (MatrixField) throws(MatrixDecodingError) -> Event
    ) throws(MatrixDecodingError) -> [Event] {
        guard let section = try container.optional(key) else { return [] }
        return try section.optional("events")?.array(max: max, read) ?? []
    }
}

/// A joined room's part of a `/sync` answer.
public struct MatrixJoinedRoom: Sendable, Hashable {
    public var id: MatrixRoomID
    public var timeline: MatrixTimeline
    /// State from before the timeline's first event that the client has not seen.
    public var state: [MatrixEvent]
    /// Typing users and read receipts.
    public var ephemeral: [MatrixEphemeralEvent]
    /// The account's data for this room (`org.chatdir.anchor`, say).
    public var accountData: [MatrixAccountDataEvent]

    init(id: MatrixRoomID, _ field: MatrixField) throws(MatrixDecodingError) {
        self.id = id
        timeline = try field.optional("timeline", MatrixTimeline.init) ?? MatrixTimeline()
        state = try MatrixSync.events(field, "state", max: MatrixLimits.stateEventsPerRoom, MatrixEvent.init)
        ephemeral = try MatrixSync.events(
            field, "ephemeral", max: MatrixLimits.eventsPerPage, MatrixEphemeralEvent.init)
        accountData = try field.optional("account_data", MatrixAccountDataEvent.list) ?? []
    }
}

/// A room the user is invited to: the state the inviter chose to show.
public struct MatrixInvitedRoom: Sendable, Hashable {
    public var id: MatrixRoomID
    public var inviteState: [MatrixStrippedStateEvent]

    init(id: MatrixRoomID, _ field: MatrixField) throws(MatrixDecodingError) {
        self.id = id
        inviteState = try MatrixSync.events(
            field, "invite_state", max: MatrixLimits.eventsPerPage, MatrixStrippedStateEvent.init)
    }
}

/// A room the user left (or was removed from): its last timeline and state up to the leave.
public struct MatrixLeftRoom: Sendable, Hashable {
    public var id: MatrixRoomID
    public var timeline: MatrixTimeline
    public var state: [MatrixEvent]

    init(id: MatrixRoomID, _ field: MatrixField) throws(MatrixDecodingError) {
        self.id = id
        timeline = try field.optional("timeline", MatrixTimeline.init) ?? MatrixTimeline()
        state = try MatrixSync.events(field, "state", max: MatrixLimits.stateEventsPerRoom, MatrixEvent.init)
    }
}

/// A room's timeline in a `/sync` answer: the newest events, and whether older ones were left
/// out (`limited`: fetch them from `/messages` starting at `prev_batch`).
public struct MatrixTimeline: Sendable, Hashable {
    public var events: [MatrixEvent] = []
    public var limited = false
    public var previousBatch: String?

    public init(events: [MatrixEvent] = [], limited: Bool = false, previousBatch: String? = nil) {
        self.events = events
        self.limited = limited
        self.previousBatch = previousBatch
    }

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        events = try field.optional("events")?.array(max: MatrixLimits.eventsPerPage, MatrixEvent.init) ?? []
        limited = try field.optional("limited")?.bool() ?? false
        previousBatch = try field.optional("prev_batch")?.token()
    }
}
