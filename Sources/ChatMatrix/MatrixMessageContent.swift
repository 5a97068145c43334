import ChatDomain

/// The content of an `m.room.message` event: its msgtype and body, chatdir's own client message
/// ID when a chatdir device sent it, and the relation that makes it an edit or a reply.
public struct MatrixMessageContent: Sendable, Hashable {
    /// `m.text`, `m.emote`, `m.notice`, `m.image`, `m.file`, `m.audio`, `m.video`, `m.location`,
    /// or any other (kept by name; the body is the fallback every client shows).
    public var msgtype: String
    /// The text, at most ``MatrixLimits/bodyBytes``.
    public var body: String
    /// `url` of an image, file, audio or video message (an `mxc://` URI).
    public var url: String?
    /// `org.chatdir.cmid`: the outbox's client message ID, carried in the content so every
    /// device of every member writes the same record.
    public var clientMessageID: ClientMessageID?
    /// `m.relates_to`.
    public var relation: MatrixRelation?
    /// `m.new_content` of an edit: what the edited message now says.
    public var newContent: MatrixNewContent?

    /// The content key chatdir's client message ID travels under.
    public static let clientMessageIDKey = "org.chatdir.cmid"

    public init(
        msgtype: String = "m.text", body: String, url: String? = nil, clientMessageID: ClientMessageID? = nil,
        relation: MatrixRelation? = nil, newContent: MatrixNewContent? = nil
    ) {
        self.msgtype = msgtype
        self.body = body
        self.url = url
        self.clientMessageID = clientMessageID
        self.relation = relation
        self.newContent = newContent
    }

    /// Whether this message replaces an earlier one (`rel_type: m.replace`): an edit.
    public var replaces: MatrixEventID? {
        relation?.type == MatrixRelation.replace ? relation?.eventID : nil
    }

    init(_ content: MatrixField) throws(MatrixDecodingError) {
        msgtype = try content.required("msgtype").typeName()
        body = try content.required("body").string(maxBytes: MatrixLimits.bodyBytes)
        url = try content.optional("url")?.string()
        clientMessageID = try content.optional(Self.clientMessageIDKey) { field throws(MatrixDecodingError) in
            let text = try field.string(maxBytes: MatrixLimits.identifierBytes)
            do { return try ClientMessageID(text) } catch { throw field.refuse("not a client message ID: \(error)") }
        }
        relation = try content.optional("m.relates_to", MatrixRelation.init)
        newContent = try content.optional("m.new_content", MatrixNewContent.init)
    }

    /// The content as JSON, in the order and with the keys the decoder reads.
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("msgtype", .string(msgtype)), ("body", .string(body))]
        if let url { members.append(("url", .string(url))) }
        if let clientMessageID { members.append((Self.clientMessageIDKey, .string(clientMessageID.rawValue))) }
        if let relation { members.append(("m.relates_to", relation.json)) }
        if let newContent { members.append(("m.new_content", newContent.json)) }
        return .object(members)
    }
}

/// `m.relates_to` of a message: a typed relation (`rel_type`, `event_id`) and/or a reply
/// (`m.in_reply_to.event_id`).
public struct MatrixRelation: Sendable, Hashable {
    /// `m.replace` (an edit), `m.thread`, `m.annotation`, or any other.
    public var type: String?
    public var eventID: MatrixEventID?
    public var inReplyTo: MatrixEventID?

    /// The relation type of an edit.
    public static let replace = "m.replace"

    public init(type: String? = nil, eventID: MatrixEventID? = nil, inReplyTo: MatrixEventID? = nil) {
        self.type = type
        self.eventID = eventID
        self.inReplyTo = inReplyTo
    }

    /// An edit of `eventID`.
    public static func replacing(_ eventID: MatrixEventID) -> MatrixRelation {
        MatrixRelation(type: replace, eventID: eventID)
    }

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        let field = try field.object()
        type = try field.optional("rel_type")?.typeName()
        eventID = try field.optional("event_id")?.eventID()
        if type != nil, eventID == nil { throw .invalid(path: field.path.description + ".event_id", reason: "missing") }
        inReplyTo = try field.optional("m.in_reply_to") { field throws(MatrixDecodingError) in
            try field.required("event_id").eventID()
        }
    }

    var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if let type { members.append(("rel_type", .string(type))) }
        if let eventID { members.append(("event_id", .string(eventID.rawValue))) }
        if let inReplyTo { members.append(("m.in_reply_to", .object([("event_id", .string(inReplyTo.rawValue))]))) }
        return .object(members)
    }
}

/// `m.new_content` of an edit: the replacement's msgtype and body.
public struct MatrixNewContent: Sendable, Hashable {
    public var msgtype: String
    public var body: String

    public init(msgtype: String = "m.text", body: String) {
        self.msgtype = msgtype
        self.body = body
    }

    init(_ field: MatrixField) throws(MatrixDecodingError) {
        msgtype = try field.required("msgtype").typeName()
        body = try field.required("body").string(maxBytes: MatrixLimits.bodyBytes)
    }

    var json: JSONValue { .object([("msgtype", .string(msgtype)), ("body", .string(body))]) }
}
