import ChatDomain

/// The client-server API's endpoints chatdir calls: method and path, with every path segment and
/// query value percent-encoded (room IDs hold `!` and `:`, event IDs `$`, txnIds anything).
public struct MatrixEndpoint: Sendable, Hashable, CustomStringConvertible {
    public var method: String
    /// The path without the query, as error messages name the endpoint.
    public var path: String
    /// `name=value` pairs, already encoded, joined by `&`; empty for none.
    public var query: String

    /// The request target: path and `?query`.
    public var target: String { query.isEmpty ? path : path + "?" + query }

    /// `GET /_matrix/client/v3/sync`: the method and path, never the query.
    public var description: String { "\(method) \(path)" }

    private init(_ method: String, _ path: String, query: [(String, String?)] = []) {
        self.method = method
        self.path = path
        self.query = query.compactMap { name, value in value.map { "\(name)=\(Self.encode($0))" } }.joined(
            separator: "&")
    }

    private static let v3 = "/_matrix/client/v3"

    private static func room(_ room: MatrixRoomID) -> String { v3 + "/rooms/" + encode(room.rawValue) }

    public static let versions = MatrixEndpoint("GET", "/_matrix/client/versions")
    public static let wellKnown = MatrixEndpoint("GET", "/.well-known/matrix/client")
    public static let login = MatrixEndpoint("POST", v3 + "/login")
    /// Ends the session of the token sent (this device's), and deletes the device.
    public static let logout = MatrixEndpoint("POST", v3 + "/logout")
    public static let refresh = MatrixEndpoint("POST", v3 + "/refresh")
    public static let whoami = MatrixEndpoint("GET", v3 + "/account/whoami")
    public static let joinedRooms = MatrixEndpoint("GET", v3 + "/joined_rooms")
    public static let createRoom = MatrixEndpoint("POST", v3 + "/createRoom")

    /// `GET /sync`: changes after `since` (everything when nil), waiting up to `timeoutMilliseconds` for one.
    public static func sync(since: String?, timeoutMilliseconds: Int, filter: String? = nil) -> MatrixEndpoint {
        MatrixEndpoint(
            "GET", v3 + "/sync",
            query: [("since", since), ("timeout", String(timeoutMilliseconds)), ("filter", filter)])
    }

    /// Which way `/messages` pages.
    public enum Direction: String, Sendable {
        /// Newest first, towards the room's beginning.
        case backward = "b"
        /// Oldest first.
        case forward = "f"
    }

    /// `GET /rooms/{room}/messages`: a page from `from` (the start, or the newest going back, when nil),
    /// only the events `filter` (a RoomEventFilter as JSON) lets through when given.
    public static func messages(
        _ room: MatrixRoomID, from: String?, direction: Direction, limit: Int, filter: String? = nil
    ) -> MatrixEndpoint {
        MatrixEndpoint(
            "GET", self.room(room) + "/messages",
            query: [("from", from), ("dir", direction.rawValue), ("limit", String(limit)), ("filter", filter)])
    }

    /// `GET /rooms/{room}/context/{event}`.
    public static func context(_ room: MatrixRoomID, _ event: MatrixEventID, limit: Int, filter: String? = nil)
        -> MatrixEndpoint
    {
        var query = [("limit", String(limit))]
        if let filter { query.append(("filter", filter)) }
        return MatrixEndpoint("GET", self.room(room) + "/context/" + encode(event.rawValue), query: query)
    }

    /// `PUT /rooms/{room}/send/{type}/{txnId}`.
    public static func send(_ room: MatrixRoomID, type: String, transactionID: String) -> MatrixEndpoint {
        MatrixEndpoint("PUT", self.room(room) + "/send/" + encode(type) + "/" + encode(transactionID))
    }

    /// `GET /rooms/{room}/state/{type}[/{stateKey}]`: one state event's content (the key left
    /// out when empty, as the specification allows).
    public static func stateEvent(_ room: MatrixRoomID, type: String, stateKey: String = "") -> MatrixEndpoint {
        MatrixEndpoint(
            "GET", self.room(room) + "/state/" + encode(type) + (stateKey.isEmpty ? "" : "/" + encode(stateKey)))
    }

    /// `POST /join/{roomIdOrAlias}`.
    public static func join(_ room: String) -> MatrixEndpoint {
        MatrixEndpoint("POST", v3 + "/join/" + encode(room))
    }

    /// `POST /rooms/{room}/leave`: leaves a joined room, or declines an invitation to it.
    public static func leave(_ room: MatrixRoomID) -> MatrixEndpoint {
        MatrixEndpoint("POST", self.room(room) + "/leave")
    }

    /// `POST /rooms/{room}/invite`.
    public static func invite(_ room: MatrixRoomID) -> MatrixEndpoint {
        MatrixEndpoint("POST", self.room(room) + "/invite")
    }

    /// `POST /rooms/{room}/receipt/{type}/{event}`.
    public static func receipt(_ room: MatrixRoomID, type: String, event: MatrixEventID) -> MatrixEndpoint {
        MatrixEndpoint("POST", self.room(room) + "/receipt/" + encode(type) + "/" + encode(event.rawValue))
    }

    /// `PUT /rooms/{room}/typing/{user}`.
    public static func typing(_ room: MatrixRoomID, user: MatrixUserID) -> MatrixEndpoint {
        MatrixEndpoint("PUT", self.room(room) + "/typing/" + encode(user.rawValue))
    }

    /// `GET` or `PUT /user/{user}/rooms/{room}/account_data/{type}`.
    public static func roomAccountData(method: String, user: MatrixUserID, room: MatrixRoomID, type: String)
        -> MatrixEndpoint
    {
        MatrixEndpoint(
            method,
            v3 + "/user/" + encode(user.rawValue) + "/rooms/" + encode(room.rawValue) + "/account_data/" + encode(type))
    }

    /// `text` percent-encoded as one path segment or query value: every byte of its UTF-8 but
    /// the unreserved characters (RFC 3986: letters, digits, `-`, `.`, `_`, `~`) as `%XX`. A
    /// segment that is `.` or `..` has its dots encoded too, so no proxy or server resolves it
    /// as a step up the path.
    public static func encode(_ text: String) -> String {
        if text == "." || text == ".." { return String(repeating: "%2E", count: text.count) }
        return PercentEncoding.encode(text) { PercentEncoding.isLetterDigitOrMark($0) || $0 == UInt8(ascii: "~") }
    }
}
