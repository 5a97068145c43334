/// What an event's content means to chatdir, by the event's type. Types chatdir does not use
/// are ``other``: their content is not read (only checked to be an object), so a room full of
/// events chatdir does not know decodes as well as one without them.
public enum MatrixEventContent: Sendable, Hashable {
    /// `m.room.message` with its content.
    case message(MatrixMessageContent)
    /// An event whose content the server removed by a redaction (`{}`): `m.room.message`,
    /// `m.room.name` and `m.room.encryption` lose every key they are read by.
    case redacted
    /// `m.room.redaction`: which event it removes (`content.redacts` from room version 11,
    /// the event's top-level `redacts` before; nil when a redaction itself was redacted).
    case redaction(redacts: MatrixEventID?)
    /// `m.room.create`: the room's version (`"1"` when absent, as the specification says).
    case create(roomVersion: String)
    /// `m.room.name`.
    case name(String)
    /// `m.room.member`: the membership (`join`, `invite`, `leave`, `ban`, `knock`) and display name.
    case member(membership: String, displayName: String?)
    /// `m.room.encryption`: the room is end-to-end encrypted with `algorithm`.
    case encryption(algorithm: String)
    /// Any other type.
    case other

    /// Reads `content` (an object) as an event of `type` says.
    init(type: String, content: MatrixField, topLevelRedacts: MatrixEventID?) throws(MatrixDecodingError) {
        switch type {
        case "m.room.message":
            self = content.isEmptyObject ? .redacted : .message(try MatrixMessageContent(content))
        case "m.room.redaction":
            let redacts = try content.optional("redacts") { field throws(MatrixDecodingError) in try field.eventID() }
            self = .redaction(redacts: redacts ?? topLevelRedacts)
        case "m.room.create":
            let version = try content.optional("room_version") { field throws(MatrixDecodingError) in
                try field.typeName()
            }
            self = .create(roomVersion: version ?? "1")
        case "m.room.name":
            guard !content.isEmptyObject else {
                self = .redacted
                return
            }
            self = .name(try content.required("name") { field throws(MatrixDecodingError) in try field.string() })
        case "m.room.member":
            let membership = try content.required("membership") { field throws(MatrixDecodingError) in
                try field.typeName()
            }
            let displayName = try content.optional("displayname") { field throws(MatrixDecodingError) in
                try field.string()
            }
            self = .member(membership: membership, displayName: displayName)
        case "m.room.encryption":
            guard !content.isEmptyObject else {
                self = .redacted
                return
            }
            self = .encryption(
                algorithm: try content.required("algorithm") { field throws(MatrixDecodingError) in try field.typeName()
                })
        default:
            self = .other
        }
    }
}
