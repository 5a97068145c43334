import ChatDomain

extension WireRequestDecoder {
    /// The body of `POST /v1/conversations`: `{"id": "<name>", "members": ["<user>", …], "title": "…"}`.
    /// IDs must be valid names, members listed once each (at most ``NewConversation/maxMembers``),
    /// the title one line (``NewConversation/problem(withTitle:)``).
    public static func newConversation(_ bytes: [UInt8]) throws(WireRequestError) -> NewConversation {
        let body = try RequestBody(bytes)
        try body.allowOnly(["id", "members", "title"])
        let idText = try body.string("id")
        let id: ConversationID
        do { id = try ConversationID(idText) } catch { throw WireRequestError(error.description) }
        let title = try body.string("title")
        if let problem = NewConversation.problem(withTitle: title) { throw WireRequestError(problem) }
        let items = try body.array("members")
        guard !items.isEmpty else {
            throw WireRequestError("\"members\" is empty; list every member, yourself among them")
        }
        guard items.count <= NewConversation.maxMembers else {
            throw WireRequestError(
                "\"members\" lists \(items.count) users; at most \(NewConversation.maxMembers) are allowed")
        }
        var members: [UserID] = []
        var seen = Set<UserID>()
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else {
                throw WireRequestError("members[\(index)] must be a string, found \(item.typeDescription)")
            }
            let user: UserID
            do { user = try UserID.name(text) } catch { throw WireRequestError("members[\(index)]: \(error)") }
            guard seen.insert(user).inserted else {
                throw WireRequestError("members lists \(quoted(user.rawValue)) twice; list each member once")
            }
            members.append(user)
        }
        return NewConversation(id: id, title: title, members: members)
    }
}
