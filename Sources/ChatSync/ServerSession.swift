import ChatDomain
import ChatProtocol
import ChatStore

/// The sync engine's one way to a server: who I am, the conversations, pages of history, one
/// outbox message delivered, positions, typing, a conversation started, and the live events.
///
/// Everything above it (``SyncEngine``: outbox order, one delivery per client message ID,
/// forward-only positions, gap filling, budgets, reconnecting) is written once, in sequence
/// numbers; everything below it is one protocol's requests, answers and errors
/// (``WireSession``: wire contract v1 over ``APIClient`` and ``LiveConnection``). A protocol
/// without a per-conversation counter translates its own IDs into sequences below the seam.
///
/// Every failure is a ``SyncError``, classified as wire v1's are (temporary, transport,
/// rejected, unauthorized, contract, untrusted): the engine's retry and backoff rules read only
/// the case. A session is a value: the engine copies it to give one pass its deadline
/// (``passDeadline``) and replaces it when the token is renewed (``renewing(token:)``).
protocol ServerSession: Sendable {
    /// The server, for log lines and errors.
    var server: ServerAddress { get }
    /// What this protocol has besides the requests every session answers.
    var capabilities: ServerCapabilities { get }
    /// A one-pass sync's deadline: no request of this session outlasts it.
    var passDeadline: PassDeadline? { get set }

    /// The user the token belongs to.
    func me() async throws(SyncError) -> UserID
    /// Every conversation I am a member of.
    func conversations() async throws(SyncError) -> [ServerConversation]
    /// The invitations the last ``conversations()`` found (none where a protocol has none).
    func invitations() async -> [Invitation]
    /// Joins a room (Matrix: an ID or alias) and returns its conversation; a protocol without
    /// rooms to join answers ``SyncError/rejected(status:message:)`` with 405.
    func join(_ room: String) async throws(SyncError) -> ConversationID
    /// The sequence `id`'s numbering is anchored at (only with
    /// ``ServerCapabilities/anchoredNumbering``); nil while it has none (no message yet).
    func historyAnchor(_ id: ConversationID) async throws(SyncError) -> Int?
    /// Up to `limit` messages of conversation `id` after, before or at the newest end of its
    /// history, in sequence order; `hasMore` when the server holds more in that direction.
    func messages(_ id: ConversationID, _ page: HistoryPage, limit: Int) async throws(SyncError) -> MessagesPage
    /// Delivers one outbox message. The same `clientMessageID` on every attempt: a server that
    /// accepted it before answers with that acceptance instead of taking it twice.
    func deliver(_ id: ConversationID, clientMessageID: ClientMessageID, text: String) async throws(SyncError)
        -> Delivery
    /// Every member's positions in `id` (only with ``ServerCapabilities/positionsOnRequest``).
    func positions(_ id: ConversationID) async throws(SyncError) -> Positions
    /// Moves my read position in `id` to `sequence`; returns the server's position after it.
    func postRead(_ id: ConversationID, upTo sequence: Int) async throws(SyncError) -> Int
    /// Moves my delivered position (only with ``ServerCapabilities/deliveredPositions``).
    func postDelivered(_ id: ConversationID, upTo sequence: Int) async throws(SyncError) -> Int
    /// Tells the members of `id` that I am typing; a server without typing answers
    /// ``SyncError/rejected(status:message:)`` with 404 or 405.
    func typing(_ id: ConversationID) async throws(SyncError)
    /// Starts a conversation queued on this device (`outbox/create.json`). `key` names this
    /// creation, the same on every attempt (``QueuedCreation/key(for:by:)``), for a protocol
    /// whose create request is not idempotent: it finds an earlier attempt's conversation by it
    /// instead of making a second. Returns the conversation as the server lists it when the
    /// server's ID for it is not the one asked for (a Matrix room's folder name), nil when it is.
    /// 409 (the ID is taken) and 404 or 405 (the server cannot) are
    /// ``SyncError/rejected(status:message:)``.
    func startConversation(_ conversation: NewConversation, key: String) async throws(SyncError)
        -> ServerConversation?
    /// One live connection: batches of ``LiveUpdate``s, the first ``LiveUpdate/connected`` once
    /// it is up, the last ``LiveUpdate/disconnected(_:)``; each batch holds at most `limit`.
    /// Cancelling the consuming task ends the connection.
    func liveUpdates(limit: Int) -> AsyncStream<[LiveUpdate]>
    /// This session with `token` in place of the refused one: every later request, and the next
    /// live connection, carries it.
    func renewing(token: String) -> Self
}

extension ServerSession {
    func invitations() async -> [Invitation] { [] }

    func historyAnchor(_ id: ConversationID) async throws(SyncError) -> Int? { nil }

    func join(_ room: String) async throws(SyncError) -> ConversationID {
        throw .rejected(status: 405, message: "\(server) is a chatdir server: there are no rooms to join")
    }
}
