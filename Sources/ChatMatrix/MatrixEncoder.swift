import ChatDomain

/// The request bodies chatdir sends to a homeserver, as canonical JSON (``JSONWriter``).
public enum MatrixEncoder {
    /// `POST /login` with the password flow: `user` is a user ID or a localpart; `deviceID` is
    /// kept fixed per store, so the server's txnId memory (per device) survives a new login.
    public static func passwordLogin(
        user: String, password: String, deviceID: String, deviceName: String? = nil, refreshToken: Bool = false
    ) -> [UInt8] {
        var members: [(key: String, value: JSONValue)] = [
            ("type", .string("m.login.password")),
            ("identifier", .object([("type", .string("m.id.user")), ("user", .string(user))])),
            ("password", .string(password)),
            ("device_id", .string(deviceID)),
        ]
        if let deviceName { members.append(("initial_device_display_name", .string(deviceName))) }
        if refreshToken { members.append(("refresh_token", .bool(true))) }
        return JSONWriter.encode(.object(members))
    }

    /// `POST /refresh`: trades `refreshToken` for a new access token.
    public static func refresh(_ refreshToken: String) -> [UInt8] {
        JSONWriter.encode(.object([("refresh_token", .string(refreshToken))]))
    }

    /// `POST /logout`: an empty body (the token in the Authorization header says whose session ends).
    public static func logout() -> [UInt8] {
        JSONWriter.encode(.object([]))
    }

    /// The content of an `m.room.message` event (`PUT /rooms/{room}/send/m.room.message/{txnId}`).
    public static func messageContent(_ content: MatrixMessageContent) -> [UInt8] {
        JSONWriter.encode(content.json)
    }

    /// `POST /rooms/{room}/receipt/{type}/{event}`: an unthreaded receipt's empty body.
    public static func receipt() -> [UInt8] {
        JSONWriter.encode(.object([]))
    }

    /// `PUT /rooms/{room}/typing/{user}`: typing for `timeout` (milliseconds), or stopped.
    public static func typing(_ typing: Bool, timeoutMilliseconds: Int = 30_000) -> [UInt8] {
        var members: [(key: String, value: JSONValue)] = [("typing", .bool(typing))]
        if typing { members.append(("timeout", .integer(timeoutMilliseconds))) }
        return JSONWriter.encode(.object(members))
    }

    /// `POST /createRoom`: a private chat (`preset: private_chat`) named `name`, inviting `invite`;
    /// with a `creationKey`, the room's `m.room.create` content carries it
    /// (``creationKeyField``), so the room can be found again after a lost answer.
    public static func createRoom(
        name: String?, invite: [MatrixUserID], alias: String? = nil, creationKey: String? = nil
    ) -> [UInt8] {
        var members: [(key: String, value: JSONValue)] = [("preset", .string("private_chat"))]
        if let name { members.append(("name", .string(name))) }
        if !invite.isEmpty { members.append(("invite", .array(invite.map { .string($0.rawValue) }))) }
        if let alias { members.append(("room_alias_name", .string(alias))) }
        if let creationKey {
            members.append(("creation_content", .object([(creationKeyField, .string(creationKey))])))
        }
        return JSONWriter.encode(.object(members))
    }

    /// The key of `m.room.create`'s content that holds a room's creation key: `POST /createRoom`
    /// has no transaction ID, so a retry finds the room an earlier attempt made by this key.
    public static let creationKeyField = "org.chatdir.creation"

    /// `POST /rooms/{room}/invite`: invites `user`.
    public static func invite(_ user: MatrixUserID) -> [UInt8] {
        JSONWriter.encode(.object([("user_id", .string(user.rawValue))]))
    }

    /// `PUT /user/{user}/rooms/{room}/account_data/org.chatdir.anchor`.
    public static func anchor(_ anchor: MatrixAnchor) -> [UInt8] {
        JSONWriter.encode(anchor.json)
    }
}
