import ChatDomain

/// Turns the server's JSON into validated domain values: the client's strict reading of wire v1.
/// Everything from the network passes here before it can touch the store: IDs must be valid
/// names (never paths), sequences positive and at most ``Message/maxSequence`` (what a segment
/// name can hold), texts within the contract's limits, and every field of the right type.
public enum WireDecoder {
    /// The highest sequence (and position) accepted: the largest the store's format holds
    /// (segment names are 10 digits). JSON would carry up to 2^53, but what cannot be stored
    /// where readers look must not be stored at all.
    public static let maxSequence = Message.maxSequence

    /// Parses an answer, within the request's `deadline` when given: a slow decode counts as a
    /// slow answer (``WireDecodingError/deadlinePassed(what:byteCount:)``), not as one that holds
    /// the sync with no error.
    public static func parse(_ bytes: [UInt8], what: String, deadline: ContinuousClock.Instant? = nil)
        throws(WireDecodingError) -> JSONValue
    {
        do {
            return try JSONParser.parse(bytes, deadline: deadline)
        } catch {
            if error.deadlinePassed { throw .deadlinePassed(what: what, byteCount: bytes.count) }
            throw .contract("\(what) is not valid JSON (\(error))")
        }
    }

    static func object(_ value: JSONValue, _ what: String) throws(WireDecodingError) -> JSONValue {
        guard case .object = value else { throw .contract("\(what) must be an object, found \(value.typeDescription)") }
        return value
    }

    static func string(_ value: JSONValue, _ key: String, _ what: String) throws(WireDecodingError) -> String {
        guard case .string(let text)? = value[key] else {
            throw .contract("\(what): \"\(key)\" must be a string, found \(value[key]?.typeDescription ?? "nothing")")
        }
        return text
    }

    static func integer(_ value: JSONValue, _ key: String, _ what: String, in range: ClosedRange<Int>)
        throws(WireDecodingError) -> Int
    {
        guard case .integer(let number)? = value[key] else {
            throw .contract(
                "\(what): \"\(key)\" must be a whole number, found \(value[key]?.typeDescription ?? "nothing")")
        }
        guard range.contains(number) else {
            let limit = range.upperBound == maxSequence ? " (the largest sequence a store can hold)" : ""
            throw .contract("\(what): \"\(key)\" is \(number), outside \(range.lowerBound)…\(range.upperBound)\(limit)")
        }
        return number
    }

    static func array(_ value: JSONValue, _ key: String, _ what: String) throws(WireDecodingError) -> [JSONValue] {
        guard case .array(let items)? = value[key] else {
            throw .contract("\(what): \"\(key)\" must be an array, found \(value[key]?.typeDescription ?? "nothing")")
        }
        return items
    }

    static func user(_ text: String, _ what: String) throws(WireDecodingError) -> UserID {
        do { return try UserID.name(text) } catch { throw .contract("\(what): \(error)") }
    }

    static func conversation(_ text: String, _ what: String) throws(WireDecodingError) -> ConversationID {
        do { return try ConversationID(text) } catch { throw .contract("\(what): \(error)") }
    }

    /// One message record (``Message/writeRecord(into:)``), as a page, a POST's answer or a live event holds it.
    public static func message(_ value: JSONValue, what: String = "a message") throws(WireDecodingError) -> Message {
        let value = try object(value, what)
        let idText = try string(value, "clientMessageId", what)
        let id: ClientMessageID
        do { id = try ClientMessageID(idText) } catch { throw .contract("\(what): \(error)") }
        let sender = try user(try string(value, "senderId", what), what)
        let text = try string(value, "text", what)
        do { try validateMessageText(text) } catch { throw .contract("\(what): \(error)") }
        let sequence = try integer(value, "sequence", what, in: 1...maxSequence)
        let sentAt = try string(value, "sentAt", what)
        guard sentAt.utf8.count <= Message.maxSentAtBytes, sentAt.unicodeScalars.allSatisfy({ $0.value >= 0x20 }) else {
            throw .contract("\(what): \"sentAt\" is not a timestamp")
        }
        return Message(sequence: sequence, clientMessageID: id, senderID: sender, text: text, sentAt: sentAt)
    }

    /// The answer to `POST …/messages`: the accepted message.
    public static func acceptedMessage(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil)
        throws(WireDecodingError) -> Message
    {
        try message(try parse(bytes, what: "the accepted message", deadline: deadline), what: "the accepted message")
    }

    public static func messagesPage(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil)
        throws(WireDecodingError) -> MessagesPage
    {
        let value = try object(try parse(bytes, what: "the messages page", deadline: deadline), "the messages page")
        var items: [Message] = []
        for (index, item) in try array(value, "items", "the messages page").enumerated() {
            items.append(try message(item, what: "message \(index + 1) of the page"))
        }
        guard case .bool(let hasMore)? = value["hasMore"] else {
            throw .contract("the messages page: \"hasMore\" must be true or false")
        }
        return MessagesPage(items: items, hasMore: hasMore)
    }

    public static func conversations(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil)
        throws(WireDecodingError) -> [WireConversation]
    {
        let value = try object(
            try parse(bytes, what: "the conversation list", deadline: deadline), "the conversation list")
        var result: [WireConversation] = []
        for (index, item) in try array(value, "items", "the conversation list").enumerated() {
            result.append(try conversationItem(item, what: "conversation \(index + 1) of the list"))
        }
        return result
    }

    /// One item of the conversation list; the title is cut to 200 characters.
    static func conversationItem(_ item: JSONValue, what: String) throws(WireDecodingError) -> WireConversation {
        let item = try object(item, what)
        let id = try conversation(try string(item, "id", what), what)
        let title = try string(item, "title", what)
        let members = try memberList(item, what)
        let last = try integer(item, "lastSequence", what, in: 0...maxSequence)
        return WireConversation(id: id, title: String(title.prefix(200)), members: members, lastSequence: last)
    }

    static func memberList(_ value: JSONValue, _ what: String) throws(WireDecodingError) -> [UserID] {
        var members: [UserID] = []
        for member in try array(value, "members", what) {
            guard case .string(let text) = member else { throw .contract("\(what): members must be strings") }
            members.append(try user(text, what))
        }
        return members
    }

    /// The 201 answer to `POST /v1/conversations`: the conversation as the list would show it.
    public static func startedConversation(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil)
        throws(WireDecodingError) -> WireConversation
    {
        try conversationItem(
            try parse(bytes, what: "the started conversation", deadline: deadline), what: "the started conversation")
    }

    public static func receipts(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil) throws(WireDecodingError)
        -> Positions
    {
        let value = try object(try parse(bytes, what: "the receipts", deadline: deadline), "the receipts")
        var positions = Positions()
        for item in try array(value, "members", "the receipts") {
            let item = try object(item, "a receipt")
            let member = try user(try string(item, "userId", "a receipt"), "a receipt")
            let delivered = try integer(item, "deliveredUpTo", "a receipt", in: 0...maxSequence)
            let read = try integer(item, "readUpTo", "a receipt", in: 0...maxSequence)
            positions.merge(MemberPosition(deliveredUpTo: delivered, readUpTo: read), for: member)
        }
        return positions
    }

    /// `{"deliveredUpTo": n}` or `{"readUpTo": n}`, the answer to `POST …/delivered` or `…/read`.
    public static func position(_ bytes: [UInt8], _ kind: PositionKind, deadline: ContinuousClock.Instant? = nil)
        throws(WireDecodingError) -> Int
    {
        try integer(
            try object(try parse(bytes, what: "the answer", deadline: deadline), "the answer"), kind.keyText,
            "the answer", in: 0...maxSequence)
    }

    /// The answer to `GET /v1/me`.
    public static func userID(_ bytes: [UInt8], deadline: ContinuousClock.Instant? = nil) throws(WireDecodingError)
        -> UserID
    {
        let value = try object(try parse(bytes, what: "/v1/me", deadline: deadline), "/v1/me")
        return try user(try string(value, "userId", "/v1/me"), "/v1/me")
    }

    /// One text frame of `/v1/live`; nil for an event type this client does not know (ignored).
    public static func liveEvent(_ text: String) throws(WireDecodingError) -> LiveEvent? {
        let value = try object(try parse(Array(text.utf8), what: "a live event"), "a live event")
        let type = try string(value, "type", "a live event")
        let id = try conversation(try string(value, "conversationId", "a live event"), "a live event")
        switch type {
        case "message":
            guard let body = value["message"] else { throw .contract("a message event has no \"message\"") }
            return .message(id, try message(body, what: "a live message"))
        case "receipt":
            let member = try user(try string(value, "userId", "a receipt event"), "a receipt event")
            let delivered = try integer(value, "deliveredUpTo", "a receipt event", in: 0...maxSequence)
            let read = try integer(value, "readUpTo", "a receipt event", in: 0...maxSequence)
            return .receipt(id, member, MemberPosition(deliveredUpTo: delivered, readUpTo: read))
        case "typing":
            return .typing(id, try user(try string(value, "userId", "a typing event"), "a typing event"))
        case "conversation":
            let title = try string(value, "title", "a conversation event")
            return .conversation(
                id, title: String(title.prefix(200)), members: try memberList(value, "a conversation event"))
        default:
            return nil
        }
    }

    /// The `error` of an error body, cut to one line; a placeholder when there is none.
    public static func errorMessage(_ bytes: [UInt8]) -> String {
        guard let value = try? JSONParser.parse(bytes), case .string(let text)? = value["error"] else {
            return "no reason given"
        }
        let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
        return String(line.prefix(300))
    }
}
