import ChatDomain
import ChatProtocol
import ChatWire

/// The client side of wire contract v1 over HTTP/1.1, one method per endpoint.
///
/// Every request has a real deadline, every answer is classified as ``SyncError`` (temporary,
/// transport, rejected, unauthorized, contract) by ``ResponseVerdict`` and every body is validated by
/// ``WireDecoder`` before a caller sees it. The token goes into the Authorization header and
/// nowhere else: never into an error, a log line or the store.
public struct APIClient: Sendable {
    public let server: ServerAddress
    private let token: String
    private let http: HTTPClient
    /// How long one request may take from start to the last byte of the answer, decoding included.
    public var timeout: Duration
    /// A one-pass sync's deadline: each request's own deadline is the earlier of the two.
    public var passDeadline: PassDeadline?
    /// Called after every successful answer: the server is up (the live worker's reconnect
    /// wait ends, ``ReconnectWake``).
    var answered: (@Sendable () -> Void)?
    /// Answers larger than this are refused (a hostile server cannot exhaust memory).
    public static let maxBodySize = 8 << 20

    /// A client for `server`, over TLS for `https://` (trusting the system store plus `caFile`).
    public init(server: ServerAddress, token: String, timeout: Duration = .seconds(10), caFile: String? = nil) {
        self.init(server: server, token: token, timeout: timeout, connector: .network(caFile: caFile))
    }

    /// A client whose connections come from `connector` (tests script the stream).
    init(server: ServerAddress, token: String, timeout: Duration = .seconds(10), connector: Connector) {
        self.server = server
        self.token = token
        self.timeout = timeout
        http = HTTPClient(address: server, maxBodySize: Self.maxBodySize, connector: connector)
    }

    public func me() async throws(SyncError) -> UserID {
        let answer = try await send(.me)
        return try answer.decode(WireDecoder.userID)
    }

    public func conversations() async throws(SyncError) -> [WireConversation] {
        let answer = try await send(.conversations)
        return try answer.decode(WireDecoder.conversations)
    }

    /// Which page of messages to ask for.
    public enum Page: Sendable, Equatable {
        case after(Int)
        case before(Int)
        case newest
    }

    public func messages(_ id: ConversationID, _ page: Page, limit: Int = 500) async throws(SyncError) -> MessagesPage {
        var query = MessagesQuery(limit: limit)
        switch page {
        case .after(let sequence): query.after = sequence
        case .before(let sequence): query.before = sequence
        case .newest: break
        }
        let answer = try await send(.messages(id), query: query.queryString)
        let result = try answer.decode(WireDecoder.messagesPage)
        for message in result.items {
            switch page {
            case .after(let sequence) where message.sequence <= sequence,
                .before(let sequence) where message.sequence >= sequence:
                throw .contract("the page for \(page) holds sequence \(message.sequence)")
            default: break
            }
        }
        return result
    }

    /// Delivers one message. Returns the accepted message and whether it was new (201) or
    /// already accepted earlier with this client message ID (200).
    public func post(_ id: ConversationID, clientMessageID: ClientMessageID, text: String) async throws(SyncError) -> (
        message: Message, created: Bool
    ) {
        let body = WireEncoder.postedMessage(PostedMessage(clientMessageID: clientMessageID, text: text))
        let answer = try await send(.postMessage(id), body: body)
        let message = try answer.decode(WireDecoder.acceptedMessage)
        guard message.clientMessageID == clientMessageID, message.text == text else {
            throw .contract("the server answered a POST with another message (\(message.clientMessageID))")
        }
        return (message, answer.status == 201)
    }

    public func receipts(_ id: ConversationID) async throws(SyncError) -> Positions {
        let answer = try await send(.receipts(id))
        return try answer.decode(WireDecoder.receipts)
    }

    public func delivered(_ id: ConversationID, upTo sequence: Int) async throws(SyncError) -> Int {
        let answer = try await send(.delivered(id), body: WireEncoder.positionRequest(upTo: sequence))
        return try answer.decode(WireDecoder.position, .delivered)
    }

    public func read(_ id: ConversationID, upTo sequence: Int) async throws(SyncError) -> Int {
        let answer = try await send(.read(id), body: WireEncoder.positionRequest(upTo: sequence))
        return try answer.decode(WireDecoder.position, .read)
    }

    /// Tells the server the user is typing in `id` (answered 204; any 2xx will do). A server
    /// without the endpoint answers 404 or 405: ``SyncError/rejected(status:message:)``.
    public func typing(_ id: ConversationID) async throws(SyncError) {
        _ = try await send(.typing(id), body: Array("{}".utf8))
    }

    // MARK: - Transport

    struct Answer {
        var status: Int
        var body: [UInt8]
        /// The end of the request's ``timeout``: decoding the body must finish by then too.
        var deadline: ContinuousClock.Instant
    }

    /// Sends a request to `endpoint` (its method and path, `?query` when given).
    func send(_ endpoint: Endpoint, query: String? = nil, body: [UInt8]? = nil) async throws(SyncError) -> Answer {
        try await send(endpoint.method, endpoint.path + (query.map { "?" + $0 } ?? ""), body: body)
    }

    func send(_ method: String, _ path: String, body: [UInt8]? = nil) async throws(SyncError) -> Answer {
        var headers: HTTPHeaders = ["Authorization": "Bearer \(token)", "Accept": "application/json"]
        if body != nil { headers.add(name: "Content-Type", value: "application/json") }
        var timeout = self.timeout
        var cutByPass = false
        if let pass = passDeadline {
            let left = pass.instant - .now
            guard left > .zero else { throw .passBudgetSpent(server, before: "\(method) \(path)", budget: pass.budget) }
            if left < timeout { (timeout, cutByPass) = (left, true) }
        }
        let deadline = ContinuousClock.now + timeout
        let response: HTTPClient.Response
        do {
            response = try await http.send(
                method: method, target: path, headers: headers, body: body ?? [], timeout: timeout)
        } catch {
            if error.isRetryable && cutByPass && passDeadline?.isOver() == true {
                throw .passBudgetSpent(
                    server, "\(method) \(path)", budget: passDeadline?.budget ?? timeout, waitedFor: error.reason)
            }
            throw error.locating(request: "\(method) \(path)", on: server)
        }
        let bytes = response.body
        switch ResponseVerdict(status: response.status, headers: response.headers) {
        case .success:
            answered?()
            return Answer(status: response.status, body: bytes, deadline: deadline)
        case .unauthorized:
            throw .unauthorized("401: " + WireDecoder.errorMessage(bytes))
        case .temporary(let retryAfter):
            throw .temporary(
                "\(method) \(path): \(response.status) \(WireDecoder.errorMessage(bytes))", retryAfter: retryAfter)
        case .rejected:
            throw .rejected(status: response.status, message: WireDecoder.errorMessage(bytes))
        case .unexpected:
            throw .contract("unexpected status \(response.status) for \(method) \(path)")
        }
    }
}
