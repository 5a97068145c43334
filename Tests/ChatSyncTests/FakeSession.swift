import ChatDomain
import ChatProtocol
import Synchronization

@testable import ChatSync

/// A server kept in memory, reached only through ``ServerSession``: what a test of the engine's
/// rules uses instead of sockets. Its address is one nothing listens on, so an engine that went
/// around the seam would fail to reach anything.
final class FakeServer: Sendable {
    /// What the fake does with a delivery besides accepting it.
    enum DeliveryScript: Sendable, Equatable {
        /// Accepted and placed, as wire v1 answers.
        case place
        /// Accepted and placed on the server, but the answer never arrives (a temporary failure).
        case loseAnswer
        /// Refused (422): the message fails.
        case reject
        /// Accepted, answered without a place; the message joins the history now.
        case acceptUnplaced
        /// Accepted, answered without a place; the message joins the history only at ``placeHeld()``.
        case acceptAndHold
    }

    struct State: Sendable {
        var history: [Message] = []
        var positions = Positions()
        /// Client message IDs accepted but not in the history yet (``DeliveryScript/acceptAndHold``).
        var held: [Message] = []
        /// Every request, in order, as "deliver <client ID>", "read 3", "delivered 3", "messages", …
        var requests: [String] = []
        /// Scripts for the next deliveries of each text (first one first); ``DeliveryScript/place`` after.
        var scripts: [String: [DeliveryScript]] = [:]
        var live: AsyncStream<[LiveUpdate]>.Continuation?
    }

    let me: UserID
    let conversation: ConversationID
    let members: [UserID]
    let capabilities: ServerCapabilities
    let state = Mutex(State())

    init(me: String = "alice", members: [String] = ["alice", "bob"], capabilities: ServerCapabilities) throws {
        self.me = try UserID(me)
        conversation = try ConversationID("ab")
        self.members = try members.map { try UserID($0) }
        self.capabilities = capabilities
    }

    /// `texts` sent by `sender`, placed at the end of the history.
    func append(_ texts: [String], from sender: String) throws {
        let sender = try UserID(sender)
        state.withLock { state in
            for text in texts { state.history.append(Self.message(state.history.count + 1, .random(), sender, text)) }
        }
    }

    func script(_ text: String, _ scripts: DeliveryScript...) {
        state.withLock { $0.scripts[text, default: []] += scripts }
    }

    /// The messages accepted with ``DeliveryScript/acceptAndHold`` join the history.
    func placeHeld() {
        state.withLock { state in
            for message in state.held {
                state.history.append(Self.message(state.history.count + 1, message.clientMessageID, me, message.text))
            }
            state.held = []
        }
    }

    var history: [Message] { state.withLock { $0.history } }
    var requests: [String] { state.withLock { $0.requests } }

    /// The requests that start with `prefix`.
    func requests(_ prefix: String) -> [String] { requests.filter { $0.hasPrefix(prefix) } }

    /// Yields `updates` as one batch to the live connection that is open.
    func live(_ updates: [LiveUpdate]) {
        _ = state.withLock { $0.live }?.yield(updates)
    }

    var isLive: Bool { state.withLock { $0.live != nil } }

    static func message(_ sequence: Int, _ id: ClientMessageID, _ sender: UserID, _ text: String) -> Message {
        Message(
            sequence: sequence, clientMessageID: id, senderID: sender, text: text, sentAt: "2026-11-29T10:00:00.000Z")
    }

    fileprivate func log(_ request: String) {
        state.withLock { $0.requests.append(request) }
    }

    fileprivate func deliver(_ id: ClientMessageID, _ text: String) throws(SyncError) -> Delivery {
        let outcome = state.withLock { state -> Result<Delivery, SyncError> in
            state.requests.append("deliver \(id)")
            // Accepted before under this ID: the same acceptance again, never a second message.
            if let known = state.history.first(where: { $0.clientMessageID == id }) { return .success(.placed(known)) }
            if state.held.contains(where: { $0.clientMessageID == id }) { return .success(.accepted) }
            var script = DeliveryScript.place
            if var queued = state.scripts[text], !queued.isEmpty {
                script = queued.removeFirst()
                state.scripts[text] = queued
            }
            let placed = Self.message(state.history.count + 1, id, me, text)
            switch script {
            case .place:
                state.history.append(placed)
                return .success(.placed(placed))
            case .loseAnswer:
                state.history.append(placed)
                return .failure(.temporary("the answer was lost on the way", retryAfter: nil))
            case .reject:
                return .failure(.rejected(status: 422, message: "refused by the test"))
            case .acceptUnplaced:
                state.history.append(placed)
                return .success(.accepted)
            case .acceptAndHold:
                state.held.append(placed)
                return .success(.accepted)
            }
        }
        return try outcome.get()
    }

    fileprivate func messages(_ page: HistoryPage, limit: Int) -> MessagesPage {
        state.withLock { state in
            state.requests.append("messages \(page)")
            let history = state.history
            switch page {
            case .after(let sequence):
                let items = history.filter { $0.sequence > sequence }
                return MessagesPage(items: Array(items.prefix(limit)), hasMore: items.count > limit)
            case .before(let sequence):
                let items = history.filter { $0.sequence < sequence }
                return MessagesPage(items: Array(items.suffix(limit)), hasMore: items.count > limit)
            case .newest:
                return MessagesPage(items: Array(history.suffix(limit)), hasMore: history.count > limit)
            }
        }
    }

    fileprivate func post(_ kind: String, _ sequence: Int) -> Int {
        state.withLock { state in
            state.requests.append("\(kind) \(sequence)")
            let newest = state.history.last?.sequence ?? 0
            var mine = state.positions[me]
            let upTo = min(sequence, newest)
            if kind == "read" { mine.readUpTo = max(mine.readUpTo, upTo) }
            if kind == "delivered" { mine.deliveredUpTo = max(mine.deliveredUpTo, upTo) }
            state.positions = state.positions.merged(with: Positions([me: mine]))
            return kind == "read" ? mine.readUpTo : mine.deliveredUpTo
        }
    }

    fileprivate func openLive() -> AsyncStream<[LiveUpdate]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [LiveUpdate].self)
        continuation.onTermination = { [weak self] _ in self?.state.withLock { $0.live = nil } }
        state.withLock { state in
            state.requests.append("live")
            state.live = continuation
        }
        continuation.yield([.connected])
        return stream
    }
}

/// The engine's ``ServerSession`` onto a ``FakeServer``.
struct FakeSession: ServerSession {
    let fake: FakeServer
    var passDeadline: PassDeadline?

    /// Port 9 (discard) on loopback: no test server listens there.
    var server: ServerAddress { ServerAddress(host: "127.0.0.1", port: 9) }
    var capabilities: ServerCapabilities { fake.capabilities }

    func me() async throws(SyncError) -> UserID {
        fake.log("me")
        return fake.me
    }

    func conversations() async throws(SyncError) -> [ServerConversation] {
        fake.log("conversations")
        return [
            ServerConversation(
                id: fake.conversation, title: "Alice and Bob", members: fake.members, head: fake.history.last?.sequence)
        ]
    }

    func messages(_ id: ConversationID, _ page: HistoryPage, limit: Int) async throws(SyncError) -> MessagesPage {
        fake.messages(page, limit: limit)
    }

    func deliver(_ id: ConversationID, clientMessageID: ClientMessageID, text: String) async throws(SyncError)
        -> Delivery
    {
        try fake.deliver(clientMessageID, text)
    }

    func positions(_ id: ConversationID) async throws(SyncError) -> Positions {
        fake.log("positions")
        return fake.state.withLock { $0.positions }
    }

    func postRead(_ id: ConversationID, upTo sequence: Int) async throws(SyncError) -> Int {
        fake.post("read", sequence)
    }

    func postDelivered(_ id: ConversationID, upTo sequence: Int) async throws(SyncError) -> Int {
        fake.post("delivered", sequence)
    }

    func typing(_ id: ConversationID) async throws(SyncError) {
        fake.log("typing")
    }

    func startConversation(_ conversation: NewConversation, key: String) async throws(SyncError)
        -> ServerConversation?
    {
        fake.log("start \(conversation.id)")
        return nil
    }

    func liveUpdates(limit: Int) -> AsyncStream<[LiveUpdate]> {
        fake.openLive()
    }

    func renewing(token: String) -> FakeSession { self }
}
