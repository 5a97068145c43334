import ChatDomain
import ChatProtocol
import ChatStore
import ChatSystem
import ChatWire
import Synchronization

/// What the connection does with one request's outcome.
enum Reply: Sendable {
    /// Write this response; close the connection after it when `close` is set.
    case response(HTTPResponse, close: Bool)
    /// The request was committed, and the drop-reply fault says: close without answering.
    case drop
    /// Write the 101 and turn the connection into a live socket for `user`.
    case upgrade(HTTPResponse, user: UserID)
}

/// A request that cannot be served: the status, one line for `{"error": …}`, extra headers.
struct APIError: Error, Sendable {
    var status: HTTPStatus
    var message: String
    var headers: HTTPHeaders = [:]

    var response: HTTPResponse {
        var headers = headers
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        return HTTPResponse(status: status, headers: headers, body: WireEncoder.error(message))
    }

    static func badRequest(_ message: String) -> Self { Self(status: .badRequest, message: message) }

    static let missingToken = Self(
        status: .unauthorized,
        message: "no bearer token; send Authorization: Bearer <token> (tokens are in the server's users file)",
        headers: ["WWW-Authenticate": "Bearer"])
    static let unknownToken = Self(
        status: .unauthorized, message: "the bearer token is not in the server's users file; check the token",
        headers: ["WWW-Authenticate": "Bearer error=\"invalid_token\""])

    static func unknownConversation(_ id: ConversationID) -> Self {
        Self(status: .notFound, message: "no conversation \(quoted(id.rawValue)); GET /v1/conversations lists yours")
    }

    static func notMember(_ user: UserID, _ id: ConversationID) -> Self {
        Self(status: .forbidden, message: "\(user) is not a member of conversation \(quoted(id.rawValue))")
    }

    static func storage(_ error: StoreError) -> Self {
        Self(
            status: .serviceUnavailable,
            message: "the server could not write its data (\(error)); nothing was accepted, retry later",
            headers: ["Retry-After": "1"])
    }
}

/// The endpoints of wire v1 (docs/PROTOCOL.md): request in, reply out. Knows no socket; the
/// connection thread calls ``handle(_:)`` and writes what it returns.
final class API: Sendable {
    let data: DataDirectory
    let hub: LiveHub
    let faults: Faults
    /// How many requests arrived: the index of each fault decision.
    private let requestCounter = Atomic<UInt64>(0)

    init(data: DataDirectory, hub: LiveHub, faults: Faults) {
        self.data = data
        self.hub = hub
        self.faults = faults
    }

    func handle(_ request: HTTPRequest) -> Reply {
        let index = requestCounter.wrappingAdd(1, ordering: .relaxed).oldValue
        if faults.latencyMilliseconds > 0 {
            SystemThread.sleep(milliseconds: faults.latencyMilliseconds)
        }
        if faults.strikes(.rateLimit, probability: faults.rateLimit, index: index) {
            let error = APIError(
                status: .tooManyRequests,
                message: "rate limited (fault injection); retry after \(faults.retryAfterSeconds) s",
                headers: ["Retry-After": String(faults.retryAfterSeconds)])
            return .response(error.response, close: false)
        }
        if faults.strikes(.error5xx, probability: faults.error5xx, index: index) {
            let error = APIError(
                status: .serviceUnavailable,
                message: "temporarily unavailable (fault injection); nothing was done, retry")
            return .response(error.response, close: false)
        }
        do {
            return try route(request, index: index)
        } catch {
            return .response(error.response, close: false)
        }
    }

    // MARK: Routing

    private func route(_ request: HTTPRequest, index: UInt64) throws(APIError) -> Reply {
        let endpoint: Endpoint
        switch Endpoint.resolve(method: request.method, path: request.target.path) {
        case .found(let found):
            endpoint = found
        case .invalidParameter(let error):
            _ = try authenticate(request)
            throw .badRequest(error.description)
        case .methodNotAllowed(let method, let allowed):
            throw APIError(
                status: .methodNotAllowed,
                message: Endpoint.Resolution.methodNotAllowedMessage(method, allowed: allowed),
                headers: ["Allow": allowed.joined(separator: ", ")])
        case .notFound(let path, let hint):
            throw APIError(status: .notFound, message: Endpoint.notFoundMessage(path: path, hint: hint))
        }
        let user = try authenticate(request)
        switch endpoint {
        case .me:
            try rejectQuery(request)
            return ok(WireEncoder.me(user))
        case .conversations:
            try rejectQuery(request)
            return ok(conversationList(for: user))
        case .createConversation:
            try rejectQuery(request)
            return try startConversation(request, user: user, index: index)
        case .messages(let id):
            return ok(try messagePage(request, log: try conversation(id, of: user)))
        case .postMessage(let id):
            let log = try conversation(id, of: user)
            try rejectQuery(request)
            return try postMessage(request, log: log, user: user, index: index)
        case .receipts(let id):
            let log = try conversation(id, of: user)
            try rejectQuery(request)
            return ok(WireEncoder.receipts(log.memberPositions()))
        case .delivered(let id):
            let log = try conversation(id, of: user)
            try rejectQuery(request)
            return try postPosition(request, log: log, user: user, kind: .delivered, index: index)
        case .read(let id):
            let log = try conversation(id, of: user)
            try rejectQuery(request)
            return try postPosition(request, log: log, user: user, kind: .read, index: index)
        case .typing(let id):
            let log = try conversation(id, of: user)
            try rejectQuery(request)
            return try postTyping(request, log: log, user: user)
        case .live:
            do {
                return .upgrade(try WebSocketServerHandshake.accept(request), user: user)
            } catch {
                var headers = error.headers
                headers.add(name: "Connection", value: "close")
                return .response(
                    APIError(status: error.status, message: error.message, headers: headers).response, close: true)
            }
        }
    }

    /// The conversation `id` names, when `user` is one of its members.
    private func conversation(_ id: ConversationID, of user: UserID) throws(APIError) -> ConversationLog {
        guard let log = data.conversations[id] else { throw .unknownConversation(id) }
        guard log.members.contains(user) else { throw .notMember(user, id) }
        return log
    }

    /// The user the bearer token stands for.
    private func authenticate(_ request: HTTPRequest) throws(APIError) -> UserID {
        let values = request.headers.values(for: "Authorization")
        guard let value = values.first else { throw .missingToken }
        guard values.count == 1 else { throw .badRequest("\(values.count) Authorization headers; send one") }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError(
                status: .unauthorized, message: "Authorization is not \"Bearer <token>\"",
                headers: ["WWW-Authenticate": "Bearer"])
        }
        guard let user = data.users.user(forToken: String(parts[1]).trimmingSpaces()) else { throw .unknownToken }
        return user
    }

    func ok(_ body: [UInt8], status: HTTPStatus = .ok) -> Reply {
        .response(
            HTTPResponse(status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: body),
            close: false)
    }

    // MARK: Reading

    private func conversationList(for user: UserID) -> [UInt8] {
        let table = data.conversations
        let items: [WireConversation] = table.keys.sorted().compactMap { id in
            guard let log = table[id], log.members.contains(user) else { return nil }
            return log.listed
        }
        return WireEncoder.conversations(items)
    }

    private func messagePage(_ request: HTTPRequest, log: ConversationLog) throws(APIError) -> [UInt8] {
        let query: MessagesQuery
        do { query = try MessagesQuery(items: request.target.queryItems) } catch { throw .badRequest(error.message) }
        let page =
            if let after = query.after { log.messages(after: after, limit: query.limit) } else {
                log.messages(before: query.before, limit: query.limit)
            }
        return WireEncoder.messagesPage(MessagesPage(items: page.items, hasMore: page.hasMore))
    }

    private func rejectQuery(_ request: HTTPRequest) throws(APIError) {
        if let name = request.target.queryItems.first?.name {
            throw .badRequest("unknown query parameter \(quoted(name)); this endpoint takes none")
        }
    }

    // MARK: Writing

    private func postMessage(_ request: HTTPRequest, log: ConversationLog, user: UserID, index: UInt64) throws(APIError)
        -> Reply
    {
        let posted: PostedMessage
        do { posted = try WireRequestDecoder.postedMessage(request.body) } catch { throw .badRequest(error.message) }
        let (clientMessageID, text) = (posted.clientMessageID, posted.text)
        if let word = faults.rejectText, text.contains(word) {
            throw .badRequest(
                "the text contains \(quoted(word)), which this server refuses (fault injection: reject-text)")
        }

        let result: ConversationLog.AppendResult
        do {
            result = try log.append(
                clientMessageID: clientMessageID, sender: user, text: text,
                now: { Clock.iso8601(nanoseconds: Clock.nanosecondsSince1970()) },
                published: { [hub] messages in
                    hub.publish(messages.map { WireEncoder.liveEvent(.message(log.id, $0)) }, to: log.members)
                }
            )
        } catch {
            throw .storage(error)
        }
        if faults.strikes(.dropReply, probability: faults.dropReply, index: index) { return .drop }
        switch result {
        case .created(let message): return ok(WireEncoder.message(message), status: .created)
        case .existing(let message): return ok(WireEncoder.message(message))
        }
    }

    private func postPosition(
        _ request: HTTPRequest, log: ConversationLog, user: UserID, kind: PositionKind, index: UInt64
    ) throws(APIError) -> Reply {
        let asked: Int
        do { asked = try WireRequestDecoder.positionRequest(request.body) } catch { throw .badRequest(error.message) }
        let isRead = kind == .read
        let outcome: (position: MemberPosition, moved: Bool)
        do {
            outcome = try log.advance(user, delivered: isRead ? nil : asked, read: isRead ? asked : nil)
        } catch {
            throw .storage(error)
        }
        if outcome.moved {
            hub.publish(WireEncoder.liveEvent(.receipt(log.id, user, outcome.position)), to: log.members)
        }
        if faults.strikes(.dropReply, probability: faults.dropReply, index: index) { return .drop }
        return ok(WireEncoder.position(isRead ? outcome.position.readUpTo : outcome.position.deliveredUpTo, kind))
    }

    /// Tells the other members' live sockets that `user` is typing: nothing is stored, the
    /// sender's own sockets (every device of theirs) hear nothing, and a catch-up never shows it.
    private func postTyping(_ request: HTTPRequest, log: ConversationLog, user: UserID) throws(APIError) -> Reply {
        do { try WireRequestDecoder.typingRequest(request.body) } catch { throw .badRequest(error.message) }
        hub.publish(WireEncoder.liveEvent(.typing(log.id, user)), to: log.members.subtracting([user]))
        return .response(HTTPResponse(status: .noContent, headers: [:], body: []), close: false)
    }
}
