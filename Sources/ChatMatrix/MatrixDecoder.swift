import ChatDomain

/// Turns a homeserver's JSON into validated values: the client's strict reading of the Matrix
/// client-server API. Identifiers must match their grammar, counts and sizes stay under
/// ``MatrixLimits``, numbers in range, and every known key of the right type; unknown keys are
/// ignored, since servers and clients extend every object. Every refusal is a
/// ``MatrixDecodingError`` naming the field.
public enum MatrixDecoder {
    /// Parses an answer, within `deadline` when given (a slow decode is a slow answer).
    static func parse(_ bytes: [UInt8], deadline: ContinuousClock.Instant?) throws(MatrixDecodingError) -> MatrixField {
        do {
            return MatrixField(
                try JSONParser.parse(
                    bytes, limits: JSONParser.Limits(maxDepth: MatrixLimits.jsonDepth), deadline: deadline))
        } catch {
            if error.deadlinePassed { throw .deadlinePassed(what: "the answer", byteCount: bytes.count) }
            throw .invalid(path: "", reason: "not valid JSON (\(error))")
        }
    }

    private static func decode<T>(
        _ bytes: [UInt8], _ deadline: ContinuousClock.Instant?, _ read: (MatrixField) throws(MatrixDecodingError) -> T
    ) throws(MatrixDecodingError) -> T {
        try read(try parse(bytes, deadline: deadline))
    }

    /// `GET /_matrix/client/versions`.
    public static func versions(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil) throws(MatrixDecodingError)
        -> MatrixVersions
    { try decode(bytes, deadline, MatrixVersions.init) }

    /// `GET /.well-known/matrix/client`.
    public static func wellKnown(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil) throws(MatrixDecodingError)
        -> MatrixWellKnown
    { try decode(bytes, deadline, MatrixWellKnown.init) }

    /// `POST /login`.
    public static func login(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil) throws(MatrixDecodingError)
        -> MatrixLogin
    { try decode(bytes, deadline, MatrixLogin.init) }

    /// `POST /refresh`.
    public static func refresh(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil)
        throws(MatrixDecodingError) -> MatrixRefresh
    { try decode(bytes, deadline, MatrixRefresh.init) }

    /// `GET /account/whoami`.
    public static func whoami(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil) throws(MatrixDecodingError)
        -> MatrixWhoami
    { try decode(bytes, deadline, MatrixWhoami.init) }

    /// `GET /joined_rooms`.
    public static func joinedRooms(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil)
        throws(MatrixDecodingError) -> [MatrixRoomID]
    {
        try decode(bytes, deadline) { field throws(MatrixDecodingError) in
            try field.required("joined_rooms").array(max: MatrixLimits.roomsPerSync) {
                item throws(MatrixDecodingError) in try item.roomID()
            }
        }
    }

    /// `GET /sync`.
    public static func sync(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil) throws(MatrixDecodingError)
        -> MatrixSync
    { try decode(bytes, deadline, MatrixSync.init) }

    /// `GET /rooms/{room}/messages`.
    public static func messages(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil)
        throws(MatrixDecodingError) -> MatrixMessagesPage
    { try decode(bytes, deadline, MatrixMessagesPage.init) }

    /// `GET /rooms/{room}/context/{event}`.
    public static func context(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil) throws(MatrixDecodingError)
        -> MatrixEventContext
    { try decode(bytes, deadline, MatrixEventContext.init) }

    /// `PUT /rooms/{room}/send/{type}/{txnId}` (and `PUT …/redact/…`): the event's ID.
    public static func eventID(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil) throws(MatrixDecodingError)
        -> MatrixEventID
    { try decode(bytes, deadline) { field throws(MatrixDecodingError) in try field.required("event_id").eventID() } }

    /// `POST /createRoom` and `POST /join/{room}`: the room's ID.
    public static func roomID(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil) throws(MatrixDecodingError)
        -> MatrixRoomID
    { try decode(bytes, deadline) { field throws(MatrixDecodingError) in try field.required("room_id").roomID() } }

    /// One room event on its own (as `/rooms/{room}/event/{event}` gives it).
    public static func event(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil) throws(MatrixDecodingError)
        -> MatrixEvent
    { try decode(bytes, deadline, MatrixEvent.init) }

    /// The content of an `m.room.message` event on its own.
    public static func messageContent(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil)
        throws(MatrixDecodingError) -> MatrixMessageContent
    { try decode(bytes, deadline) { field throws(MatrixDecodingError) in try MatrixMessageContent(field.object()) } }

    /// `org.chatdir.anchor` account data (`GET /user/{user}/rooms/{room}/account_data/org.chatdir.anchor`).
    public static func anchor(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil) throws(MatrixDecodingError)
        -> MatrixAnchor
    { try decode(bytes, deadline, MatrixAnchor.init) }

    /// The standard error body, strictly.
    public static func errorBody(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil)
        throws(MatrixDecodingError) -> MatrixErrorBody
    { try decode(bytes, deadline, MatrixErrorBody.init) }
}
