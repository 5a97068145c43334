import ChatDomain
import ChatProtocol
import ChatStore
import ChatWire

extension APIError {
    static func notAmongMembers(_ user: UserID) -> Self {
        Self(
            status: .forbidden,
            message:
                "\(user) is not among the members; a conversation is started by one of its members, add \(quoted(user.rawValue)) to \"members\""
        )
    }

    static func unknownMember(_ user: UserID) -> Self {
        .badRequest("no user \(quoted(user.rawValue)) on this server; members must be users of its users file")
    }

    static func conversationExists(_ id: ConversationID) -> Self {
        Self(
            status: .conflict,
            message:
                "a conversation \(quoted(id.rawValue)) exists already; pick another ID (GET /v1/conversations lists yours)"
        )
    }
}

extension ConversationLog {
    /// The conversation as `GET /v1/conversations` lists it.
    var listed: WireConversation {
        WireConversation(id: id, title: info.title, members: info.members.sorted(), lastSequence: lastSequence)
    }
}

extension API {
    /// `POST /v1/conversations` (a v1 extension): starts a conversation the user is a member of
    /// (403 otherwise) with users of the users file (400 otherwise); 409 when the ID is taken,
    /// whoever took it. Durable before the 201, then announced on every member's live sockets.
    func startConversation(_ request: HTTPRequest, user: UserID, index: UInt64) throws(APIError) -> Reply {
        switch faults.noStartStatus {
        case 404?:
            throw APIError(
                status: .notFound,
                message: Endpoint.notFoundMessage(
                    path: request.target.path,
                    hint: "this server cannot start conversations (fault injection: no-start)"))
        case 405?:
            throw APIError(
                status: .methodNotAllowed,
                message: Endpoint.Resolution.methodNotAllowedMessage("POST", allowed: ["GET"]),
                headers: ["Allow": "GET"])
        default: break
        }
        let asked: NewConversation
        do { asked = try WireRequestDecoder.newConversation(request.body) } catch { throw .badRequest(error.message) }
        guard asked.members.contains(user) else { throw .notAmongMembers(user) }
        let known = Set(data.users.userIDs)
        if let stranger = asked.members.first(where: { !known.contains($0) }) { throw .unknownMember(stranger) }
        let result: DataDirectory.StartResult
        do {
            result = try data.startConversation(
                asked.id, info: ConversationInfo(title: asked.title, members: asked.members))
        } catch {
            if case .storage(let storeError) = error { throw .storage(storeError) }
            throw APIError(
                status: .serviceUnavailable,
                message: "the server could not start the conversation (\(error)); retry later",
                headers: ["Retry-After": "1"])
        }
        switch result {
        case .exists:
            throw .conversationExists(asked.id)
        case .started(let log):
            hub.publish(
                WireEncoder.liveEvent(.conversation(log.id, title: log.info.title, members: log.info.members.sorted())),
                to: log.members)
            if faults.strikes(.dropReply, probability: faults.dropReply, index: index) { return .drop }
            return ok(WireEncoder.conversation(log.listed), status: .created)
        }
    }
}
