import ChatDomain
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
        return HTTPResponse(status: status, headers: headers, body: WireJSON.error(message))
    }

    static func badRequest(_ message: String) -> Self { Self(status: .badRequest, message: message) }

    static let missingToken = Self(
        status: .unauthorized, message: "no bearer token; send Authorization: Bearer <token> (tokens are in the server's users file)",
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
        Self(status: .serviceUnavailable, message: "the server could not write its data (\(error)); nothing was accepted, retry later",
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

    static let maxLimit = 500
    static let defaultLimit = 50

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
            let error = APIError(status: .tooManyRequests, message: "rate limited (fault injection); retry after \(faults.retryAfterSeconds) s",
                                 headers: ["Retry-After": String(faults.retryAfterSeconds)])
            return .response(error.response, close: false)
        }
        if faults.strikes(.error5xx, probability: faults.error5xx, index: index) {
            let error = APIError(status: .serviceUnavailable, message: "temporarily unavailable (fault injection); nothing was done, retry")
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
        let segments = request.target.pathSegments
        switch (request.method, segments.count >= 1 ? segments[0] : "", Array(segments.dropFirst())) {
        case (_, "v1", ["me"]):
            try require("GET", request)
            let user = try authenticate(request)
            try rejectQuery(request)
            return ok(JSONWriter.encode(.object([("userId", .string(user.rawValue))])))
        case (_, "v1", ["conversations"]):
            try require("GET", request)
            let user = try authenticate(request)
            try rejectQuery(request)
            return ok(conversationList(for: user))
        case let (_, "v1", path) where path.count == 3 && path[0] == "conversations":
            return try conversationEndpoint(request, id: path[1], endpoint: path[2], index: index)
        case (_, "v1", ["live"]):
            try require("GET", request)
            let user = try authenticate(request)
            do {
                return .upgrade(try WebSocketServerHandshake.accept(request), user: user)
            } catch {
                var headers = error.headers
                headers.add(name: "Connection", value: "close")
                return .response(APIError(status: error.status, message: error.message, headers: headers).response, close: true)
            }
        default:
            throw APIError(status: .notFound, message: "no endpoint \(quoted(request.target.path)); see docs/PROTOCOL.md for the endpoints of wire v1")
        }
    }

    private func conversationEndpoint(_ request: HTTPRequest, id text: String, endpoint: String, index: UInt64) throws(APIError) -> Reply {
        let method: String
        switch endpoint {
        case "messages": method = request.method == "POST" ? "POST" : "GET"
        case "receipts": method = "GET"
        case "delivered", "read": method = "POST"
        default:
            throw APIError(status: .notFound, message: "no endpoint \(quoted(request.target.path)); a conversation has messages, receipts, delivered and read")
        }
        if endpoint == "messages" {
            guard request.method == "GET" || request.method == "POST" else {
                throw APIError(status: .methodNotAllowed, message: "\(request.method) is not allowed here; use GET or POST", headers: ["Allow": "GET, POST"])
            }
        } else {
            try require(method, request)
        }
        let user = try authenticate(request)
        let id: ConversationID
        do { id = try ConversationID(text) } catch { throw .badRequest(error.description) }
        guard let log = data.conversations[id] else { throw .unknownConversation(id) }
        guard log.members.contains(user) else { throw .notMember(user, id) }

        switch (endpoint, method) {
        case ("messages", "GET"):
            return ok(try messagePage(request, log: log))
        case ("messages", _):
            try rejectQuery(request)
            return try postMessage(request, log: log, user: user, index: index)
        case ("receipts", _):
            try rejectQuery(request)
            return ok(receipts(log))
        default:
            try rejectQuery(request)
            return try postPosition(request, log: log, user: user, isRead: endpoint == "read", index: index)
        }
    }

    private func require(_ method: String, _ request: HTTPRequest) throws(APIError) {
        guard request.method == method else {
            throw APIError(status: .methodNotAllowed, message: "\(request.method) is not allowed here; use \(method)", headers: ["Allow": method])
        }
    }

    /// The user the bearer token stands for.
    private func authenticate(_ request: HTTPRequest) throws(APIError) -> UserID {
        let values = request.headers.values(for: "Authorization")
        guard let value = values.first else { throw .missingToken }
        guard values.count == 1 else { throw .badRequest("\(values.count) Authorization headers; send one") }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else {
            throw APIError(status: .unauthorized, message: "Authorization is not \"Bearer <token>\"", headers: ["WWW-Authenticate": "Bearer"])
        }
        guard let user = data.users.user(forToken: String(parts[1]).trimmingSpaces()) else { throw .unknownToken }
        return user
    }

    private func ok(_ body: [UInt8], status: HTTPStatus = .ok) -> Reply {
        .response(HTTPResponse(status: status, headers: ["Content-Type": "application/json; charset=utf-8"], body: body), close: false)
    }

    // MARK: Reading

    private func conversationList(for user: UserID) -> [UInt8] {
        let items: [JSONValue] = data.conversations.keys.sorted().compactMap { id in
            guard let log = data.conversations[id], log.members.contains(user) else { return nil }
            return .object([
                ("id", .string(id.rawValue)),
                ("lastSequence", .integer(log.lastSequence)),
                ("members", .array(log.info.members.sorted().map { .string($0.rawValue) })),
                ("title", .string(log.info.title)),
            ])
        }
        return JSONWriter.encode(.object([("items", .array(items))]))
    }

    private func messagePage(_ request: HTTPRequest, log: ConversationLog) throws(APIError) -> [UInt8] {
        var after: Int?
        var before: Int?
        var limit = Self.defaultLimit
        for item in request.target.queryItems {
            switch item.name {
            case "after": after = try number(item, min: 0)
            case "before": before = try number(item, min: 1)
            case "limit":
                limit = try number(item, min: 1)
                guard limit <= Self.maxLimit else { throw .badRequest("limit=\(limit) is too large; at most \(Self.maxLimit)") }
            default:
                throw .badRequest("unknown query parameter \(quoted(item.name)); allowed: after, before, limit")
            }
        }
        if after != nil && before != nil { throw .badRequest("after and before together; send one of them") }
        let page = if let after { log.messages(after: after, limit: limit) } else { log.messages(before: before, limit: limit) }
        return WireJSON.messagePage(page.items, hasMore: page.hasMore)
    }

    private func number(_ item: HTTPQueryItem, min: Int) throws(APIError) -> Int {
        let text = item.value ?? ""
        guard !text.isEmpty, text.utf8.count <= 15, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(text), value >= min else {
            throw .badRequest("\(item.name)=\(quoted(text)) is not a whole number of at least \(min)")
        }
        return value
    }

    private func rejectQuery(_ request: HTTPRequest) throws(APIError) {
        if let name = request.target.queryItems.first?.name {
            throw .badRequest("unknown query parameter \(quoted(name)); this endpoint takes none")
        }
    }

    private func receipts(_ log: ConversationLog) -> [UInt8] {
        let members: [JSONValue] = log.memberPositions().map { user, position in
            .object([
                ("deliveredUpTo", .integer(position.deliveredUpTo)),
                ("readUpTo", .integer(position.readUpTo)),
                ("userId", .string(user.rawValue)),
            ])
        }
        return JSONWriter.encode(.object([("members", .array(members))]))
    }

    // MARK: Writing

    private func postMessage(_ request: HTTPRequest, log: ConversationLog, user: UserID, index: UInt64) throws(APIError) -> Reply {
        let body = try RequestBody(request.body)
        try body.allowOnly(["clientMessageId", "text"])
        let idText = try body.string("clientMessageId")
        let text = try body.string("text")
        let clientMessageID: ClientMessageID
        do { clientMessageID = try ClientMessageID(idText) } catch { throw .badRequest(error.description) }
        do { try validateMessageText(text) } catch { throw .badRequest(error.description) }
        if let word = faults.rejectText, text.contains(word) {
            throw .badRequest("the text contains \(quoted(word)), which this server refuses (fault injection: reject-text)")
        }

        let result: ConversationLog.AppendResult
        do {
            result = try log.append(
                clientMessageID: clientMessageID, sender: user, text: text,
                now: { Clock.iso8601(nanoseconds: Clock.nanosecondsSince1970()) },
                published: { [hub] messages in
                    hub.publish(messages.map { WireJSON.messageEvent($0, in: log.id) }, to: log.members)
                }
            )
        } catch {
            throw .storage(error)
        }
        if faults.strikes(.dropReply, probability: faults.dropReply, index: index) { return .drop }
        switch result {
        case let .created(message): return ok(WireJSON.message(message), status: .created)
        case let .existing(message): return ok(WireJSON.message(message))
        }
    }

    private func postPosition(_ request: HTTPRequest, log: ConversationLog, user: UserID, isRead: Bool, index: UInt64) throws(APIError) -> Reply {
        let body = try RequestBody(request.body)
        try body.allowOnly(["upToSequence"])
        let asked = try body.integer("upToSequence")
        let outcome: (position: MemberPosition, moved: Bool)
        do {
            outcome = try log.advance(user, delivered: isRead ? nil : asked, read: isRead ? asked : nil)
        } catch {
            throw .storage(error)
        }
        if outcome.moved {
            hub.publish(WireJSON.receiptEvent(outcome.position, of: user, in: log.id), to: log.members)
        }
        if faults.strikes(.dropReply, probability: faults.dropReply, index: index) { return .drop }
        let key = isRead ? "readUpTo" : "deliveredUpTo"
        return ok(JSONWriter.encode(.object([(key, .integer(isRead ? outcome.position.readUpTo : outcome.position.deliveredUpTo))])))
    }
}

/// A JSON object request body, checked strictly: valid UTF-8 JSON, an object, no unknown fields.
private struct RequestBody {
    let members: [(key: String, value: JSONValue)]

    init(_ bytes: [UInt8]) throws(APIError) {
        guard !bytes.isEmpty else { throw .badRequest("the body is empty; send a JSON object with Content-Length") }
        let value: JSONValue
        do { value = try JSONParser.parse(bytes) } catch { throw .badRequest("the body is not valid JSON: \(error)") }
        guard case let .object(members) = value else { throw .badRequest("the body is \(value.typeDescription); send a JSON object") }
        self.members = members
    }

    func allowOnly(_ keys: [String]) throws(APIError) {
        for member in members where !keys.contains(member.key) {
            throw .badRequest("unknown field \(quoted(member.key)); allowed: \(keys.joined(separator: ", "))")
        }
    }

    func string(_ key: String) throws(APIError) -> String {
        guard let value = members.first(where: { $0.key == key })?.value else { throw .badRequest("the field \"\(key)\" is missing") }
        guard case let .string(text) = value else { throw .badRequest("\"\(key)\" must be a string, found \(value.typeDescription)") }
        return text
    }

    func integer(_ key: String) throws(APIError) -> Int {
        guard let value = members.first(where: { $0.key == key })?.value else { throw .badRequest("the field \"\(key)\" is missing") }
        guard case let .integer(number) = value, number >= 0 else {
            throw .badRequest("\"\(key)\" must be a whole number of at least 0, found \(value.typeDescription == "an integer" ? "a negative number" : value.typeDescription)")
        }
        return number
    }
}
