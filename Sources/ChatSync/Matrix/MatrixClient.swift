import ChatDomain
import ChatMatrix
import ChatWire

/// A client of a Matrix homeserver's client-server API over HTTP/1.1, one method per endpoint
/// chatdir uses.
///
/// The same transport as ``APIClient`` (``HTTPClient``: keep-alive, TLS for `https://`, a real
/// deadline per request, a capped body; chunked answers too, which Synapse sends), the same
/// classification of answers (``ResponseVerdict``) read the Matrix way: `M_LIMIT_EXCEEDED` is
/// temporary with the server's `retry_after_ms`, a 401 is unauthorized (a soft logout said so),
/// any other 4xx is rejected with the server's `errcode` and words. Every body is validated by
/// ``MatrixDecoder`` before a caller sees it; one that is not what the API says is a
/// ``SyncError/contract(_:)`` naming the endpoint and the field. The access token goes into the
/// Authorization header and nowhere else: never into a path, an error or a log line.
public struct MatrixClient: Sendable {
    public let server: ServerAddress
    private let accessToken: String?
    private let http: HTTPClient
    /// How long one request may take from start to the last byte of the answer, decoding
    /// included; a long-poll `/sync` gets its server-side wait on top.
    public var timeout: Duration
    /// The longest a long-poll `/sync` asks the server to wait.
    public static let longestWait: Duration = .seconds(3600)
    /// Answers larger than this are refused: a first `/sync` of a large account is a few megabytes.
    public static let maxBodySize = 32 << 20
    /// A one-pass sync's deadline: no request runs past it (as ``APIClient/passDeadline``).
    var passDeadline: PassDeadline?
    /// Told of every successful answer (``ReconnectWake``).
    var answered: (@Sendable () -> Void)?

    /// A client for `server` (TLS for `https://`, trusting the system store plus `caFile`),
    /// authenticated by `accessToken` when given (``login(user:password:deviceID:deviceName:refreshToken:)`` needs none).
    public init(server: ServerAddress, accessToken: String?, timeout: Duration = .seconds(30), caFile: String? = nil) {
        self.init(server: server, accessToken: accessToken, timeout: timeout, connector: .network(caFile: caFile))
    }

    /// A client whose connections come from `connector` (tests script the stream).
    init(server: ServerAddress, accessToken: String?, timeout: Duration = .seconds(30), connector: Connector) {
        self.init(
            server: server, accessToken: accessToken, timeout: timeout,
            http: HTTPClient(address: server, maxBodySize: Self.maxBodySize, connector: connector, acceptsChunked: true)
        )
    }

    private init(server: ServerAddress, accessToken: String?, timeout: Duration, http: HTTPClient) {
        self.server = server
        self.accessToken = accessToken
        self.timeout = timeout
        self.http = http
    }

    /// This client with `accessToken` (a login's, a refreshed one), over the same connections.
    public func authenticated(_ accessToken: String) -> MatrixClient {
        var client = MatrixClient(server: server, accessToken: accessToken, timeout: timeout, http: http)
        client.passDeadline = passDeadline
        client.answered = answered
        return client
    }

    // MARK: - Server and account

    public func versions() async throws(SyncError) -> MatrixVersions {
        try await send(.versions).decode(MatrixDecoder.versions)
    }

    /// Where the client API is for this server's name (`/.well-known/matrix/client`).
    public func wellKnown() async throws(SyncError) -> MatrixWellKnown {
        try await send(.wellKnown).decode(MatrixDecoder.wellKnown)
    }

    /// Logs in with a password as `deviceID`: keep it fixed per store, since the server
    /// remembers txnIds per device (a send retried after a new login is still sent once).
    public func login(
        user: String, password: String, deviceID: String, deviceName: String? = nil, refreshToken: Bool = false
    ) async throws(SyncError) -> MatrixLogin {
        let body = MatrixEncoder.passwordLogin(
            user: user, password: password, deviceID: deviceID, deviceName: deviceName, refreshToken: refreshToken)
        return try await send(.login, body: body, authenticated: false).decode(MatrixDecoder.login)
    }

    /// Ends this device's session: the token is refused from then on and the server deletes the
    /// device (its txnId memory with it).
    public func logout() async throws(SyncError) {
        _ = try await send(.logout, body: MatrixEncoder.logout())
    }

    /// Trades `refreshToken` (a login's or the last refresh's) for a new access token; the old
    /// access token is refused once the new one has been used. Sent without the access token,
    /// which has usually expired by then.
    public func refresh(_ refreshToken: String) async throws(SyncError) -> MatrixRefresh {
        try await send(.refresh, body: MatrixEncoder.refresh(refreshToken), authenticated: false)
            .decode(MatrixDecoder.refresh)
    }

    public func whoami() async throws(SyncError) -> MatrixWhoami {
        try await send(.whoami).decode(MatrixDecoder.whoami)
    }

    public func joinedRooms() async throws(SyncError) -> [MatrixRoomID] {
        try await send(.joinedRooms).decode(MatrixDecoder.joinedRooms)
    }

    // MARK: - Sync and history

    /// Changes after `since` (a first sync when nil). With a `wait`, the server holds the
    /// request until something happens or the wait is over (a long poll): this request's
    /// deadline is ``timeout`` on top of it, so the server always answers first. The wait is
    /// taken as 0…``longestWait``.
    public func sync(since: String?, wait: Duration = .zero, filter: String? = nil) async throws(SyncError)
        -> MatrixSync
    {
        let wait = min(max(wait, .zero), Self.longestWait)
        let milliseconds = Int(wait.components.seconds * 1000 + wait.components.attoseconds / 1_000_000_000_000_000)
        return try await send(
            .sync(since: since, timeoutMilliseconds: milliseconds, filter: filter), extraTime: wait
        ).decode(MatrixDecoder.sync)
    }

    /// One page of `room`'s events from `from` in `direction`, only those `filter` (a
    /// RoomEventFilter as JSON) lets through when given; a page without
    /// ``MatrixMessagesPage/end`` is the last.
    public func messages(
        _ room: MatrixRoomID, from: String?, direction: MatrixEndpoint.Direction = .backward, limit: Int = 100,
        filter: String? = nil
    ) async throws(SyncError) -> MatrixMessagesPage {
        try await send(.messages(room, from: from, direction: direction, limit: limit, filter: filter))
            .decode(MatrixDecoder.messages)
    }

    /// `event` of `room` with up to `limit` events around it.
    /// `filter` (a RoomEventFilter) applies to the events around it, never to the one asked for.
    public func context(_ room: MatrixRoomID, _ event: MatrixEventID, limit: Int = 10, filter: String? = nil)
        async throws(SyncError) -> MatrixEventContext
    {
        try await send(.context(room, event, limit: limit, filter: filter)).decode(MatrixDecoder.context)
    }

    // MARK: - Sending

    /// Sends an `m.room.message`. The same `transactionID` from the same device gives the same
    /// event, however often it is retried (the server keeps txnIds for about a day).
    public func send(_ room: MatrixRoomID, transactionID: String, content: MatrixMessageContent)
        async throws(SyncError) -> MatrixEventID
    {
        guard !transactionID.isEmpty else {
            throw .rejected(status: 400, message: "an empty transaction ID was not sent (refused by this client)")
        }
        return try await send(
            .send(room, type: "m.room.message", transactionID: transactionID),
            body: MatrixEncoder.messageContent(content)
        ).decode(MatrixDecoder.eventID)
    }

    /// Whether `room` is end-to-end encrypted now, asked of the homeserver: its
    /// `m.room.encryption` state exists (whatever its content: a room in doubt is encrypted,
    /// and a room never stops being encrypted), or answers 404.
    public func isEncrypted(_ room: MatrixRoomID) async throws(SyncError) -> Bool {
        do {
            _ = try await send(.stateEvent(room, type: "m.room.encryption"))
            return true
        } catch .rejected(404, _) {
            return false
        }
    }

    /// Delivers one outbox message: `text` as an `m.text` whose content carries
    /// `clientMessageID` (so every device stores it under that ID), sent with the ID as the
    /// transaction ID (so a retry from this device is the same event). Never into an encrypted
    /// room: a homeserver takes plain text there, and every member's client would show it as
    /// unencrypted; that is refused here, before anything is sent, as a rejection of this
    /// message alone. (A room encrypted between the question and the send is not caught.)
    public func deliver(_ room: MatrixRoomID, clientMessageID: ClientMessageID, text: String)
        async throws(SyncError) -> MatrixEventID
    {
        guard try await !isEncrypted(room) else {
            throw .rejected(
                status: 400,
                message:
                    "\(room) is end-to-end encrypted, which chatdir does not support: nothing was sent (refused by this client)"
            )
        }
        return try await send(
            room, transactionID: clientMessageID.rawValue,
            content: MatrixMessageContent(body: text, clientMessageID: clientMessageID))
    }

    /// Creates a private chat named `name` inviting `invite`, its `m.room.create` content
    /// carrying `creationKey` when given; its room ID.
    public func createRoom(name: String?, invite: [MatrixUserID], alias: String? = nil, creationKey: String? = nil)
        async throws(SyncError) -> MatrixRoomID
    {
        try await send(
            .createRoom,
            body: MatrixEncoder.createRoom(name: name, invite: invite, alias: alias, creationKey: creationKey)
        ).decode(MatrixDecoder.roomID)
    }

    /// Invites `user` into `room`.
    public func invite(_ room: MatrixRoomID, _ user: MatrixUserID) async throws(SyncError) {
        _ = try await send(.invite(room), body: MatrixEncoder.invite(user))
    }

    /// Joins a room by ID or alias; the room's ID.
    public func join(_ room: String) async throws(SyncError) -> MatrixRoomID {
        try await send(.join(room), body: Array("{}".utf8)).decode(MatrixDecoder.roomID)
    }

    /// Leaves `room`, or declines the invitation to it. The room's history stays readable up to
    /// the leave, as the homeserver allows; nothing more of it comes.
    public func leave(_ room: MatrixRoomID) async throws(SyncError) {
        _ = try await send(.leave(room), body: Array("{}".utf8))
    }

    /// Marks `event` read (`m.read`: every member sees it; `m.read.private`: only the user).
    public func receipt(_ room: MatrixRoomID, event: MatrixEventID, type: String = "m.read") async throws(SyncError) {
        _ = try await send(.receipt(room, type: type, event: event), body: MatrixEncoder.receipt())
    }

    /// Says `user` is typing in `room` for `timeoutMilliseconds`, or has stopped.
    public func typing(_ room: MatrixRoomID, user: MatrixUserID, _ typing: Bool, timeoutMilliseconds: Int = 30_000)
        async throws(SyncError)
    {
        _ = try await send(
            .typing(room, user: user), body: MatrixEncoder.typing(typing, timeoutMilliseconds: timeoutMilliseconds))
    }

    // MARK: - Account data

    /// The room's `org.chatdir.anchor`, nil when no device has written one (`M_NOT_FOUND`).
    public func anchor(user: MatrixUserID, room: MatrixRoomID) async throws(SyncError) -> MatrixAnchor? {
        do {
            return try await send(.roomAccountData(method: "GET", user: user, room: room, type: MatrixAnchor.type))
                .decode(MatrixDecoder.anchor)
        } catch .rejected(404, _) {
            return nil
        }
    }

    /// Writes the room's `org.chatdir.anchor`.
    public func setAnchor(_ anchor: MatrixAnchor, user: MatrixUserID, room: MatrixRoomID) async throws(SyncError) {
        _ = try await send(
            .roomAccountData(method: "PUT", user: user, room: room, type: MatrixAnchor.type),
            body: MatrixEncoder.anchor(anchor))
    }

    // MARK: - Transport

    struct Answer {
        var endpoint: MatrixEndpoint
        var status: Int
        var body: [UInt8]
        /// The end of the request's deadline: decoding the body must finish by then too.
        var deadline: ContinuousClock.Instant

        /// The body read by `decode` (a ``MatrixDecoder`` function) within the deadline; a
        /// refusal is a contract violation naming the endpoint, a slow decode a slow answer.
        func decode<T>(_ decode: ([UInt8], ContinuousClock.Instant?) throws(MatrixDecodingError) -> T)
            throws(SyncError) -> T
        {
            do {
                return try decode(body, deadline)
            } catch {
                switch error {
                case .invalid: throw .contract("\(endpoint): \(error)")
                case .deadlinePassed: throw .temporary("\(endpoint): \(error)", retryAfter: nil)
                }
            }
        }
    }

    /// Sends one request to `endpoint`, with the token unless `authenticated` is false, and
    /// classifies the answer. `extraTime` is added to the deadline (a long poll's wait).
    func send(_ endpoint: MatrixEndpoint, body: [UInt8]? = nil, authenticated: Bool = true, extraTime: Duration = .zero)
        async throws(SyncError) -> Answer
    {
        var headers: HTTPHeaders = ["Accept": "application/json"]
        if authenticated, let accessToken { headers.add(name: "Authorization", value: "Bearer \(accessToken)") }
        if body != nil { headers.add(name: "Content-Type", value: "application/json") }
        var timeout = self.timeout + extraTime
        var cutByPass = false
        if let pass = passDeadline {
            let left = pass.instant - .now
            guard left > .zero else {
                throw .passBudgetSpent(server, before: endpoint.description, budget: pass.budget)
            }
            if left < timeout { (timeout, cutByPass) = (left, true) }
        }
        let deadline = ContinuousClock.now + timeout
        let response: HTTPClient.Response
        do {
            response = try await http.send(
                method: endpoint.method, target: endpoint.target, headers: headers, body: body ?? [], timeout: timeout)
        } catch {
            if error.isRetryable && cutByPass && passDeadline?.isOver() == true {
                throw .passBudgetSpent(
                    server, endpoint.description, budget: passDeadline?.budget ?? timeout, waitedFor: error.reason)
            }
            throw error.locating(request: endpoint.description, on: server)
        }
        let verdict = ResponseVerdict(status: response.status, headers: response.headers)
        if verdict == .success {
            answered?()
            return Answer(endpoint: endpoint, status: response.status, body: response.body, deadline: deadline)
        }
        throw MatrixAnswerError(
            endpoint: endpoint, status: response.status, verdict: verdict,
            retryAfterHeader: response.headers["Retry-After"], body: response.body, accessToken: accessToken
        ).syncError
    }
}
