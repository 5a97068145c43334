import ChatDomain
import ChatProtocol

/// Wire contract v1 behind the engine's ``ServerSession``: every request is ``APIClient``'s
/// (the same request, answer checks and errors), the live updates are ``LiveConnection``'s.
struct WireSession: ServerSession {
    private(set) var api: APIClient
    private let token: String
    private let connector: Connector
    private let pingInterval: Duration

    var server: ServerAddress { api.server }
    var capabilities: ServerCapabilities { ServerCapabilities(deliveredPositions: true, positionsOnRequest: true) }
    var passDeadline: PassDeadline? {
        get { api.passDeadline }
        set { api.passDeadline = newValue }
    }

    /// `answered` is told of every successful answer (``ReconnectWake``).
    init(
        server: ServerAddress, token: String, connector: Connector, requestTimeout: Duration, pingInterval: Duration,
        answered: (@Sendable () -> Void)?
    ) {
        var api = APIClient(server: server, token: token, connector: connector)
        api.timeout = requestTimeout
        api.answered = answered
        self.api = api
        self.token = token
        self.connector = connector
        self.pingInterval = pingInterval
    }

    func me() async throws(SyncError) -> UserID {
        try await api.me()
    }

    func conversations() async throws(SyncError) -> [ServerConversation] {
        try await api.conversations().map {
            ServerConversation(id: $0.id, title: $0.title, members: $0.members, head: $0.lastSequence)
        }
    }

    func messages(_ id: ConversationID, _ page: HistoryPage, limit: Int) async throws(SyncError) -> MessagesPage {
        let asked: APIClient.Page =
            switch page {
            case .after(let sequence): .after(sequence)
            case .before(let sequence): .before(sequence)
            case .newest: .newest
            }
        return try await api.messages(id, asked, limit: limit)
    }

    /// Wire v1 answers a POST with the message it placed (201 new, 200 accepted before).
    func deliver(_ id: ConversationID, clientMessageID: ClientMessageID, text: String) async throws(SyncError)
        -> Delivery
    {
        .placed(try await api.post(id, clientMessageID: clientMessageID, text: text).message)
    }

    func positions(_ id: ConversationID) async throws(SyncError) -> Positions {
        try await api.receipts(id)
    }

    func postRead(_ id: ConversationID, upTo sequence: Int) async throws(SyncError) -> Int {
        try await api.read(id, upTo: sequence)
    }

    func postDelivered(_ id: ConversationID, upTo sequence: Int) async throws(SyncError) -> Int {
        try await api.delivered(id, upTo: sequence)
    }

    func typing(_ id: ConversationID) async throws(SyncError) {
        try await api.typing(id)
    }

    /// `POST /v1/conversations` is idempotent by the conversation's ID (a 409 for the same
    /// members is this creation): the key is not needed, and the ID is the one asked for.
    func startConversation(_ conversation: NewConversation, key: String) async throws(SyncError)
        -> ServerConversation?
    {
        _ = try await api.startConversation(conversation)
        return nil
    }

    /// A new ``LiveConnection`` each time, carrying this session's token.
    func liveUpdates(limit: Int) -> AsyncStream<[LiveUpdate]> {
        var live = LiveConnection(server: server, token: token, pingInterval: pingInterval)
        live.connector = connector
        return live.batches(limit: limit)
    }

    func renewing(token: String) -> WireSession {
        WireSession(
            server: server, token: token, connector: connector, requestTimeout: api.timeout,
            pingInterval: pingInterval, answered: api.answered)
    }
}
