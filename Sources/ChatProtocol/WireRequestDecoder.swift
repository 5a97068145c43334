import ChatDomain

/// The server's strict reading of wire v1's request bodies: valid UTF-8 JSON, an object, no
/// unknown fields, every field of the right type and within the contract's limits. Each refusal
/// is one line for the 400 the server answers.
public enum WireRequestDecoder {
    /// The body of `POST …/messages`: `{"clientMessageId": "<UUID>", "text": "…"}`.
    public static func postedMessage(_ bytes: [UInt8]) throws(WireRequestError) -> PostedMessage {
        let body = try RequestBody(bytes)
        try body.allowOnly(["clientMessageId", "text"])
        let idText = try body.string("clientMessageId")
        let text = try body.string("text")
        let clientMessageID: ClientMessageID
        do { clientMessageID = try ClientMessageID(idText) } catch { throw WireRequestError(error.description) }
        do { try validateNewMessageText(text) } catch { throw WireRequestError(error.description) }
        return PostedMessage(clientMessageID: clientMessageID, text: text)
    }

    /// The body of `POST …/delivered` and `…/read`: `{"upToSequence": n}`, n ≥ 0.
    public static func positionRequest(_ bytes: [UInt8]) throws(WireRequestError) -> Int {
        let body = try RequestBody(bytes)
        try body.allowOnly(["upToSequence"])
        return try body.integer("upToSequence")
    }

    /// The body of `POST …/typing`: empty or `{}` (no field is defined yet, so none is allowed).
    public static func typingRequest(_ bytes: [UInt8]) throws(WireRequestError) {
        guard !bytes.isEmpty else { return }
        try RequestBody(bytes).allowOnly([])
    }
}

/// A JSON object request body, checked strictly: valid UTF-8 JSON, an object, no unknown fields.
struct RequestBody {
    let members: [(key: String, value: JSONValue)]

    init(_ bytes: [UInt8]) throws(WireRequestError) {
        guard !bytes.isEmpty else {
            throw WireRequestError("the body is empty; send a JSON object with Content-Length")
        }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch {
            throw WireRequestError("the body is not valid JSON: \(error)")
        }
        guard case .object(let members) = value else {
            throw WireRequestError("the body is \(value.typeDescription); send a JSON object")
        }
        self.members = members
    }

    func allowOnly(_ keys: [String]) throws(WireRequestError) {
        for member in members where !keys.contains(member.key) {
            let allowed =
                keys.isEmpty ? "this body takes none, send {} or nothing" : "allowed: " + keys.joined(separator: ", ")
            throw WireRequestError("unknown field \(quoted(member.key)); \(allowed)")
        }
    }

    func string(_ key: String) throws(WireRequestError) -> String {
        guard let value = members.first(where: { $0.key == key })?.value else {
            throw WireRequestError("the field \"\(key)\" is missing")
        }
        guard case .string(let text) = value else {
            throw WireRequestError("\"\(key)\" must be a string, found \(value.typeDescription)")
        }
        return text
    }

    func array(_ key: String) throws(WireRequestError) -> [JSONValue] {
        guard let value = members.first(where: { $0.key == key })?.value else {
            throw WireRequestError("the field \"\(key)\" is missing")
        }
        guard case .array(let items) = value else {
            throw WireRequestError("\"\(key)\" must be an array, found \(value.typeDescription)")
        }
        return items
    }

    func integer(_ key: String) throws(WireRequestError) -> Int {
        guard let value = members.first(where: { $0.key == key })?.value else {
            throw WireRequestError("the field \"\(key)\" is missing")
        }
        guard case .integer(let number) = value, number >= 0 else {
            throw WireRequestError(
                "\"\(key)\" must be a whole number of at least 0, found \(value.typeDescription == "an integer" ? "a negative number" : value.typeDescription)"
            )
        }
        return number
    }
}
