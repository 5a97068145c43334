/// What an event's content means to chatdir, by the event's type. Types chatdir does not use
/// are ``other``: their content is not read (only checked to be an object), so a room full of
/// events chatdir does not know decodes as well as one without them.
///
/// Content is the sender's, not the homeserver's: any member can send an event whose content
/// breaks the API (a federated server need not check it). Such content is ``unreadable(reason:)``,
/// that event alone, so one member cannot make every member's `/sync` fail; the envelope (type,
/// event ID, sender, time stamp), which the homeserver vouches for, is still read strictly.
public enum MatrixEventContent: Sendable, Hashable {
    /// `m.room.message` with its content.
    case message(MatrixMessageContent)
    /// An event whose content the server removed by a redaction (`{}`): `m.room.message`,
    /// `m.room.name` and `m.room.encryption` lose every key they are read by.
    case redacted
    /// `m.room.redaction`: which event it removes (`content.redacts` from room version 11,
    /// the event's top-level `redacts` before; nil when a redaction itself was redacted).
    case redaction(redacts: MatrixEventID?)
    /// `m.room.create`: the room's version (`"1"` when absent, as the specification says) and
    /// the creation key chatdir put into it (``MatrixEncoder/creationKeyField``), when it is a string.
    case create(roomVersion: String, creationKey: String?)
    /// `m.room.name`.
    case name(String)
    /// `m.room.canonical_alias`: the room's published alias, nil when it has none.
    case canonicalAlias(String?)
    /// `m.room.member`: the membership (`join`, `invite`, `leave`, `ban`, `knock`) and display name.
    case member(membership: String, displayName: String?)
    /// `m.room.encryption`: the room is end-to-end encrypted with `algorithm`.
    case encryption(algorithm: String)
    /// Any other type.
    case other
    /// Content of a type chatdir reads that breaks the API: why, naming the field
    /// (`content.body: not a string (found an integer)`).
    case unreadable(reason: String)

    /// Reads `content` (an object) as an event of `type` says; content that breaks the API is
    /// ``unreadable(reason:)``, never a refusal of the answer. The reason's path starts at
    /// `content`, so one event reads the same whether `/sync`, `/messages` or `/context` brought
    /// it. An `m.room.encryption` whose algorithm cannot be read still says the room is
    /// encrypted (`algorithm` is then the reason): a room in doubt is encrypted, never plain.
    init(type: String, content: MatrixField, topLevelRedacts: MatrixEventID?) {
        do {
            try self.init(
                reading: type, content: MatrixField(content.value, at: .key(.root, "content")),
                topLevelRedacts: topLevelRedacts)
        } catch {
            let reason = error.description
            self = type == "m.room.encryption" ? .encryption(algorithm: reason) : .unreadable(reason: reason)
        }
    }

    private init(reading type: String, content: MatrixField, topLevelRedacts: MatrixEventID?)
        throws(MatrixDecodingError)
    {
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
            // Whoever made the room chose this key: one that is not a string is no key, and
            // never makes the room's version unreadable.
            let key = try? content.optional(MatrixEncoder.creationKeyField) { field throws(MatrixDecodingError) in
                try field.string()
            }
            self = .create(roomVersion: version ?? "1", creationKey: key ?? nil)
        case "m.room.name":
            guard !content.isEmptyObject else {
                self = .redacted
                return
            }
            self = .name(try content.required("name") { field throws(MatrixDecodingError) in try field.string() })
        case "m.room.canonical_alias":
            let alias = try content.optional("alias") { field throws(MatrixDecodingError) in
                try field.string(maxBytes: MatrixLimits.identifierBytes)
            }
            self = .canonicalAlias(alias)
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
