import ChatDomain

/// The JSON bodies and live events of wire v1, written with the canonical writer (no spaces,
/// keys in the order wire-v1.md shows them): the same value gives the same bytes, which keeps
/// tests and `curl` output stable. The server writes answers and events with it, the client
/// its request bodies; ``WireDecoder`` and ``WireRequestDecoder`` read them back.
public enum WireEncoder {
    // MARK: Answers (server → client)

    /// `{"clientMessageId":…,"senderId":…,"sentAt":…,"sequence":…,"text":…}`: the store's record.
    public static func message(_ message: Message) -> [UInt8] {
        var writer = JSONWriter()
        message.writeRecord(into: &writer)
        return writer.bytes
    }

    /// `{"hasMore":…,"items":[…]}`
    public static func messagesPage(_ page: MessagesPage) -> [UInt8] {
        var writer = JSONWriter(capacity: page.items.count * 180 + 32)
        writer.raw("{")
        writer.key("hasMore")
        writer.write(.bool(page.hasMore))
        writer.raw(",")
        writer.key("items")
        writer.raw("[")
        for (index, message) in page.items.enumerated() {
            if index > 0 { writer.raw(",") }
            message.writeRecord(into: &writer)
        }
        writer.raw("]}")
        return writer.bytes
    }

    /// `{"items":[{"id":…,"lastSequence":…,"members":[…],"title":…},…]}`, members in the order given.
    public static func conversations(_ conversations: [WireConversation]) -> [UInt8] {
        JSONWriter.encode(.object([("items", .array(conversations.map(conversationJSON)))]))
    }

    /// `{"id":…,"lastSequence":…,"members":[…],"title":…}`: one item of the conversation list
    /// (the 201 answer to `POST /v1/conversations`).
    public static func conversation(_ conversation: WireConversation) -> [UInt8] {
        JSONWriter.encode(conversationJSON(conversation))
    }

    private static func conversationJSON(_ conversation: WireConversation) -> JSONValue {
        .object([
            ("id", .string(conversation.id.rawValue)),
            ("lastSequence", .integer(conversation.lastSequence)),
            ("members", .array(conversation.members.map { .string($0.rawValue) })),
            ("title", .string(conversation.title)),
        ])
    }

    /// `{"members":[{"deliveredUpTo":…,"readUpTo":…,"userId":…},…]}`
    public static func receipts(_ members: [(UserID, MemberPosition)]) -> [UInt8] {
        let items: [JSONValue] = members.map { user, position in
            .object([
                ("deliveredUpTo", .integer(position.deliveredUpTo)),
                ("readUpTo", .integer(position.readUpTo)),
                ("userId", .string(user.rawValue)),
            ])
        }
        return JSONWriter.encode(.object([("members", .array(items))]))
    }

    /// `{"deliveredUpTo":n}` or `{"readUpTo":n}`
    public static func position(_ sequence: Int, _ kind: PositionKind) -> [UInt8] {
        var writer = JSONWriter(capacity: 32)
        writer.raw("{")
        writer.key(kind.key)
        writer.write(sequence)
        writer.raw("}")
        return writer.bytes
    }

    /// `{"userId":…}`
    public static func me(_ user: UserID) -> [UInt8] {
        JSONWriter.encode(.object([("userId", .string(user.rawValue))]))
    }

    /// `{"error":"…"}`
    public static func error(_ message: String) -> [UInt8] {
        JSONWriter.encode(.object([("error", .string(message))]))
    }

    /// One text frame of `/v1/live`, keys in the order wire-v1.md shows:
    /// `{"type":"message","conversationId":…,"message":{…}}` or
    /// `{"type":"receipt","conversationId":…,"userId":…,"deliveredUpTo":…,"readUpTo":…}` or
    /// `{"type":"typing","conversationId":…,"userId":…}` or
    /// `{"type":"conversation","conversationId":…,"title":…,"members":[…]}`.
    public static func liveEvent(_ event: LiveEvent) -> String {
        var writer = JSONWriter()
        switch event {
        case .message(let conversation, let message):
            writer.raw("{")
            writer.key("type")
            writer.write("message")
            writer.raw(",")
            writer.key("conversationId")
            writer.write(conversation.rawValue)
            writer.raw(",")
            writer.key("message")
            message.writeRecord(into: &writer)
            writer.raw("}")
        case .receipt(let conversation, let user, let position):
            writer.raw("{")
            writer.key("type")
            writer.write("receipt")
            writer.raw(",")
            writer.key("conversationId")
            writer.write(conversation.rawValue)
            writer.raw(",")
            writer.key("userId")
            writer.write(user.rawValue)
            writer.raw(",")
            writer.key("deliveredUpTo")
            writer.write(position.deliveredUpTo)
            writer.raw(",")
            writer.key("readUpTo")
            writer.write(position.readUpTo)
            writer.raw("}")
        case .typing(let conversation, let user):
            writer.raw("{")
            writer.key("type")
            writer.write("typing")
            writer.raw(",")
            writer.key("conversationId")
            writer.write(conversation.rawValue)
            writer.raw(",")
            writer.key("userId")
            writer.write(user.rawValue)
            writer.raw("}")
        case .conversation(let conversation, let title, let members):
            writer.raw("{")
            writer.key("type")
            writer.write("conversation")
            writer.raw(",")
            writer.key("conversationId")
            writer.write(conversation.rawValue)
            writer.raw(",")
            writer.key("title")
            writer.write(title)
            writer.raw(",")
            writer.key("members")
            writer.write(.array(members.map { .string($0.rawValue) }))
            writer.raw("}")
        }
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    // MARK: Requests (client → server)

    /// `{"clientMessageId":…,"text":…}`, the body of `POST …/messages`.
    public static func postedMessage(_ message: PostedMessage) -> [UInt8] {
        JSONWriter.encode(
            .object([("clientMessageId", .string(message.clientMessageID.rawValue)), ("text", .string(message.text))]))
    }

    /// `{"id":…,"members":[…],"title":…}`, the body of `POST /v1/conversations`.
    public static func newConversation(_ conversation: NewConversation) -> [UInt8] {
        JSONWriter.encode(
            .object([
                ("id", .string(conversation.id.rawValue)),
                ("members", .array(conversation.members.map { .string($0.rawValue) })),
                ("title", .string(conversation.title)),
            ]))
    }

    /// `{"upToSequence":n}`, the body of `POST …/delivered` and `…/read`.
    public static func positionRequest(upTo sequence: Int) -> [UInt8] {
        JSONWriter.encode(.object([("upToSequence", .integer(sequence))]))
    }
}
