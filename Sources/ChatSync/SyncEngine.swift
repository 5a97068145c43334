import ChatDomain
import ChatProtocol
import ChatStore
import ChatSystem

/// The chat client proper: moves messages and positions between the server and the store,
/// by the rules of docs/FORMAT.md and docs/PROTOCOL.md. Everything it learns is written into the store; views read the
/// store only.
///
/// One engine per store: it holds the store's writer lock for its whole life.
public actor SyncEngine {
    /// Tunables; the defaults are the contract's.
    public struct Options: Sendable {
        /// Messages per catch-up or history page (the server allows 500 at most).
        public var pageSize = 500
        /// Catch-up pages per conversation in one catch-up at most: a server that always says
        /// `hasMore` ends there (the pass says more remain) instead of keeping the pass for ever.
        public var catchUpPageBudget = 2_000
        /// A progress report every this many catch-up pages (the display throttles its drawing).
        public var progressEveryPages = 1
        public var requestTimeout: Duration = .seconds(10)
        /// Attempts per outbox message in one pass before leaving it pending (temporary failures).
        public var attemptsPerPass = 4
        /// Longest wait a one-pass sync accepts between attempts (a longer Retry-After leaves it pending).
        public var longestPassWait: Duration = .seconds(30)
        /// How long a whole one-pass sync may take; past it the pass stops, exit 75.
        public var passBudget: Duration = .seconds(30)
        /// Conversations a one-pass sync has requests in flight for at once (each conversation's
        /// requests in order, on one keep-alive connection at a time).
        public var conversationsInFlight = 8
        /// Conversations of a one-pass sync whose writes are made durable together, in a few
        /// ``GroupCommit``s (see ``SyncEngine/syncGrouped(_:deadline:report:)``); 1 syncs them one
        /// at a time, every write durable on its own.
        public var conversationsPerCommit = 128
        /// Accepted messages written to the store in one durable commit at most.
        public var acceptBatch = 64
        /// Where numbering starts at an anchor (Matrix: the newest message when a room is first
        /// met), how many older messages a first sync of a conversation fetches besides; older
        /// ones come with `chatdir history` or scrolling up.
        public var firstSyncHistory = 10_000
        public var backoff = Backoff()
        /// The live worker's waits before it dials again after its connection ended; nil: ``backoff``.
        /// Any other request to the server that succeeds ends such a wait early (``ReconnectWake``).
        public var reconnectBackoff: Backoff?
        /// How long a hole in live events may stay open before a catch-up.
        public var gapGrace: Duration = .milliseconds(500)
        /// How long a live connection must stay up before a drop no longer grows the reconnect backoff.
        public var healthyConnection: Duration = .seconds(10)
        /// Shortest time between two discoveries started by live events for unknown conversations.
        public var discoveryInterval: Duration = .seconds(5)
        public var pingInterval: Duration = .seconds(30)
        /// How long the live worker waits without events before catching up anyway (a dropped
        /// last event leaves a hole that no later event reveals).
        public var idleCatchUp: Duration = .seconds(30)
        /// The live worker's shortest wait after the server's TLS was refused (``SyncError/untrusted(_:)``):
        /// only a new certificate or `--ca-file` fixes that, so a tight reconnect loop would only be noise.
        public var untrustedReconnectWait: Duration = .seconds(60)
        /// The shortest time between two token renewals (``SyncEngine/renewToken(refused:log:)``): a new
        /// token refused again within it ends the live worker instead of renewing once more.
        public var tokenRenewalInterval: Duration = .seconds(10)
        /// How often the live worker looks at the outbox even without an inotify wake-up.
        public var outboxPollInterval: Duration = .seconds(1)
        /// The shortest time between two typing POSTs for one conversation (a chat screen
        /// signals every 3 s while its user types; the worker holds to that whatever the file says).
        public var typingInterval: Duration = .seconds(3)
        /// Where every connection to the server comes from (TCP or TLS by the server's scheme,
        /// unless a test scripts the stream).
        var connector: Connector = .network(caFile: nil)
        /// A PEM file of CA certificates trusted for `https://` servers besides the system store
        /// (`--ca-file`, `CHATDIR_CA_FILE`).
        public var caFile: String? {
            didSet { connector = .network(caFile: caFile) }
        }

        public init() {}
    }

    /// What one pass did, and how it ended (``outcome``; `chatdir sync` turns that into its exit status).
    public struct Report: Sendable, Equatable {
        public var conversations = 0
        public var newMessages = 0
        public var sent = 0
        /// Messages the server rejected in this pass, with the reason.
        public var failed: [String] = []
        /// Messages still pending because the server could not be reached or kept failing.
        public var stillPending = 0
        /// Problems that stopped part of the pass (server unreachable, a broken answer).
        public var problems: [String] = []
        public var unauthorized = false
        /// Whether one of the problems was the server breaking the wire contract (``SyncError/contract(_:)``).
        public var brokeContract = false
        /// Whether the server's TLS certificate or handshake was refused (``SyncError/untrusted(_:)``).
        public var untrusted = false
        /// Conversations listed but not synced: end-to-end encrypted rooms, which chatdir cannot read.
        public var encrypted: [ConversationID] = []
        /// Conversations I am invited to and have not joined.
        public var invitations: [Invitation] = []
        /// Whether one of the problems was a system call on the store failing (``StoreError/system(_:)``:
        /// a full disk, an I/O error): the user's to fix, not the server's.
        public var storeFailed = false
        /// Conversations started here that now live under another ID: a Matrix room's folder.
        public var started: [Started] = []

        /// A conversation started here (`chatdir create ID`), and the folder it lives in now.
        public struct Started: Sendable, Equatable {
            public var id: ConversationID
            public var folder: ConversationID
        }

        /// How a pass ended, the first that applies: the token was refused, a message was
        /// rejected, the server broke the contract, the store could not be written, something is
        /// left to do, or all done.
        public enum Outcome: Sendable, Equatable {
            case tokenRefused
            /// The server's TLS certificate or handshake was refused: nothing was sent to it.
            case serverUntrusted
            case messageRejected
            case contractBroken
            /// A write (or read) of the store failed: free space or check the disk, then sync again.
            case storeFailed
            /// Some messages are still pending, or a problem stopped part of the pass: run it again later.
            case incomplete
            case complete
        }

        /// Decided from the kinds of errors met (never from their words).
        public var outcome: Outcome {
            if unauthorized { return .tokenRefused }
            if untrusted { return .serverUntrusted }
            if !failed.isEmpty { return .messageRejected }
            if brokeContract { return .contractBroken }
            if storeFailed { return .storeFailed }
            if stillPending > 0 || !problems.isEmpty { return .incomplete }
            return .complete
        }

        /// Records an error that stopped part of the pass (in conversation `id`, if it was one
        /// conversation's): its words go into ``problems``, its kind into the ``outcome``.
        mutating func record(_ error: any Error, in id: ConversationID? = nil) {
            problems.append(id.map { "\($0): \(error)" } ?? "\(error)")
            switch error as? SyncError {
            case .unauthorized?: unauthorized = true
            case .contract?: brokeContract = true
            case .untrusted?: untrusted = true
            default: break
            }
            if case .system? = error as? StoreError { storeFailed = true }
        }

        /// Adds what one conversation's part of the pass did (its counts, problems and their
        /// kinds), as if it had been recorded here.
        mutating func add(_ part: Report) {
            newMessages += part.newMessages
            sent += part.sent
            failed += part.failed
            stillPending += part.stillPending
            problems += part.problems
            unauthorized = unauthorized || part.unauthorized
            brokeContract = brokeContract || part.brokeContract
            untrusted = untrusted || part.untrusted
            storeFailed = storeFailed || part.storeFailed
        }

        /// Adds what draining conversation `id`'s outbox did. Messages the server accepted but
        /// the pass could not place yet are a problem: the next pass places them.
        mutating func add(_ outcome: DrainOutcome, in id: ConversationID) {
            sent += outcome.sent
            failed += outcome.failed
            stillPending += outcome.stillPending
            if let problem = outcome.problem { problems.append("\(id): \(problem)") }
            if outcome.unplaced > 0 {
                problems.append(
                    "\(id): \(outcome.unplaced) accepted by the server but not placed yet; run `chatdir sync` again")
            }
        }

        /// The pass in one line for stdout. "synced …" only when no problem stopped any part of
        /// it; otherwise only what was really done ("partly synced: 3 new messages, 1 sent") or
        /// "not synced", so a refused token or an unreachable server never reads as a sync of
        /// nothing (the problems themselves go to stderr).
        public var summary: String {
            let pending = stillPending > 0 ? "\(stillPending) still pending" : nil
            let rejected = failed.isEmpty ? nil : "\(failed.count) failed"
            let messages = "\(newMessages) new message\(newMessages == 1 ? "" : "s")"
            guard problems.isEmpty else {
                let done = [newMessages > 0 ? messages : nil, sent > 0 ? "\(sent) sent" : nil, rejected].compactMap {
                    $0
                }
                if done.isEmpty { return "not synced" + (pending.map { ": " + $0 } ?? "") }
                return "partly synced: " + done.joined(separator: ", ") + (pending.map { "; " + $0 } ?? "")
            }
            let unsupported = encrypted.isEmpty ? "" : " (\(encrypted.count) end-to-end encrypted, not supported)"
            let parts = [
                "\(conversations) conversation\(conversations == 1 ? "" : "s")\(unsupported)", messages, "\(sent) sent",
                rejected, pending,
            ]
            return "synced " + parts.compactMap { $0 }.joined(separator: ", ")
        }
    }

    /// The server, through the one seam the engine has (``ServerSession``), without a pass
    /// deadline; ``api`` is what requests go through. Replaced when ``renewToken(refused:log:)``
    /// gets a new token.
    var session: any ServerSession
    /// Set for the length of ``syncOnce()``: requests and retries stop there.
    private var passDeadline: PassDeadline?
    /// The session, with the running pass's deadline if there is one.
    var api: any ServerSession {
        var api = session
        api.passDeadline = passDeadline
        return api
    }
    let store: SyncStore
    let options: Options
    nonisolated let server: ServerAddress
    /// The token requests carry now (see ``renewToken(refused:log:)``).
    var token: String
    /// Asked for a new token after the server refused one (a token command run again, a token
    /// file read again); nil when the token cannot change.
    let tokenProvider: (@Sendable () async throws -> String)?
    /// When the provider last gave a token, so a server that refuses every token is not met
    /// with the provider run in a loop.
    var tokenRenewedAt: ContinuousClock.Instant?
    /// The renewal under way, which a second 401 meanwhile waits for instead of starting another.
    var tokenRenewal: Task<Bool, Never>?
    /// Where long catch-ups report how far they got.
    private var progress: (@Sendable (SyncProgress) -> Void)?
    /// The live worker's per-conversation state.
    var liveState = LiveState()
    /// Where the live worker meets chat screens: typing both ways, wishes for older pages.
    nonisolated let runtime: RuntimeChannel
    /// The worker's figures for `chatdir status` (`.sync-status`); nil writes none (tests, `history`).
    private(set) var metrics: WorkerMetrics?
    /// Told of every successful answer (``APIClient/answered``): ends the live worker's reconnect wait.
    let reconnectWake: ReconnectWake
    /// Client message IDs the server accepted without placing them (``Delivery/accepted``), by
    /// conversation, until a catch-up stores them: never delivered again meanwhile.
    var awaitingPlacement: [ConversationID: Set<ClientMessageID>] = [:]

    /// Takes the store's lock (throws ``StoreError/locked(path:holder:)`` if a worker runs).
    /// `runtime` defaults to the store's channel under `$XDG_RUNTIME_DIR` (tests pass their own).
    /// `tokenProvider`, when given, is asked for a new token after a 401 (see ``renewToken(refused:log:)``).
    public init(
        store: Store, server: ServerAddress, token: String, tokenProvider: (@Sendable () async throws -> String)? = nil,
        options: Options = Options(), runtime: RuntimeChannel? = nil
    ) throws(StoreError) {
        let wake = ReconnectWake()
        // The store says which protocol: never wire v1 to a homeserver, nor Matrix to a chatdir server.
        if store.manifest.storeProtocol == .matrix {
            let syncStore = try SyncStore(store: store)
            var client = MatrixClient(
                server: server, accessToken: token, timeout: options.requestTimeout, connector: options.connector)
            client.answered = { wake.serverAnswered() }
            try self.init(
                syncStore: syncStore, session: MatrixSession(client: client, store: syncStore), token: token,
                tokenProvider: tokenProvider, options: options, runtime: runtime, reconnectWake: wake)
            return
        }
        let session = WireSession(
            server: server, token: token, connector: options.connector, requestTimeout: options.requestTimeout,
            pingInterval: options.pingInterval, answered: { wake.serverAnswered() })
        try self.init(
            store: store, session: session, token: token, tokenProvider: tokenProvider, options: options,
            runtime: runtime, reconnectWake: wake)
    }

    /// An engine whose every request goes to `session` (tests drive it with a session of their
    /// own). `token` is the one the session carries, for ``renewToken(refused:log:)``;
    /// `reconnectWake` is the one the session tells of its successful answers.
    init(
        store: Store, session: any ServerSession, token: String,
        tokenProvider: (@Sendable () async throws -> String)? = nil, options: Options = Options(),
        runtime: RuntimeChannel? = nil, reconnectWake: ReconnectWake = ReconnectWake()
    ) throws(StoreError) {
        try self.init(
            syncStore: try SyncStore(store: store), session: session, token: token, tokenProvider: tokenProvider,
            options: options, runtime: runtime, reconnectWake: reconnectWake)
    }

    /// An engine over `syncStore` (a session that reads the store, ``MatrixSession``, shares it).
    init(
        syncStore: SyncStore, session: any ServerSession, token: String,
        tokenProvider: (@Sendable () async throws -> String)? = nil, options: Options = Options(),
        runtime: RuntimeChannel? = nil, reconnectWake: ReconnectWake = ReconnectWake()
    ) throws(StoreError) {
        self.runtime = runtime ?? RuntimeChannel(storeRoot: syncStore.store.root)
        self.store = syncStore
        server = session.server
        self.token = token
        self.tokenProvider = tokenProvider
        self.options = options
        self.reconnectWake = reconnectWake
        self.session = session
    }

    public func setProgress(_ handler: (@Sendable (SyncProgress) -> Void)?) {
        progress = handler
    }

    /// Keeps the worker's figures in `metrics` (make it once this engine holds the store's lock,
    /// so a refused second worker never overwrites the running one's figures).
    public func setMetrics(_ metrics: WorkerMetrics?) {
        self.metrics = metrics
    }

    /// Records in the worker's figures that conversation `id` stopped on `error`, unless the
    /// error is the server's or the connection's (those are the whole worker's state, not the
    /// conversation's): a damaged file, a failed write, an answer that breaks the contract.
    func noteStopped(_ id: ConversationID, _ error: any Error) {
        if error is CancellationError { return }
        switch error as? SyncError {
        case .transport?, .temporary?, .unauthorized?, .untrusted?: return
        case .rejected?, .contract?, nil: break
        }
        metrics?.conversationStopped(id, problem: "\(error)")
    }

    // MARK: - One pass

    /// One pass: discover conversations, catch up, receipts, drain the outbox, post read
    /// positions. Never throws: everything that went wrong is in the report.
    public func syncOnce() async -> Report {
        var report = Report()
        let deadline = PassDeadline(budget: options.passBudget)
        passDeadline = deadline
        defer { passDeadline = nil }
        do {
            // Grouped, each conversation's details are written with its first commit. (Not with
            // anchored numbering: a first sync's catch-up there is followed by history pages.)
            let grouped = options.conversationsPerCommit > 1 && !session.capabilities.anchoredNumbering
            var conversations = try await discoverConversations(saving: !grouped)
            // Conversations started here go to the server before anything is sent to them.
            if try await startQueuedConversations(report: &report) {
                conversations = try await discoverConversations(saving: !grouped)
            }
            report.conversations = conversations.count
            report.encrypted = conversations.filter(\.encrypted).map(\.id)
            report.invitations = await session.invitations()
            if grouped {
                try await syncGrouped(conversations, deadline: deadline, report: &report)
                return report
            }
            try await syncEach(conversations, deadline: deadline, report: &report)
            if session.capabilities.membershipEnds {
                try await offerUnlistedOutboxes(besides: conversations, report: &report)
            }
        } catch let error as SyncError {
            report.record(error)
            metrics?.unreachable(problem: error.description)
            for id in (try? await store.knownConversations()) ?? [] {
                report.stillPending += (try? await store.pendingOutbox(id).count) ?? 0
            }
        } catch {
            report.record(error)
        }
        return report
    }

    /// Drains the outbox of every stored conversation the server did not list: a room this
    /// account left (`chatdir leave`, another client) or was removed from. Nothing else of it
    /// is synced; the server refuses each queued message, which fails with its words (say,
    /// `403 M_FORBIDDEN: User … not in room …`), so `list` and `status` show it failed rather
    /// than pending for ever. A conversation started here and not yet on the server is left to
    /// its start (``startQueuedConversations(report:)``).
    func offerUnlistedOutboxes(besides listed: [ServerConversation], report: inout Report) async throws {
        let listed = Set(listed.map(\.id))
        for id in try await store.knownConversations() where !listed.contains(id) {
            guard try await store.queuedCreation(id) == nil, !(try await store.pendingOutbox(id)).isEmpty else {
                continue
            }
            report.add(try await drainOutbox(id, patient: true), in: id)
        }
    }

    /// How one conversation's part of a pass ended (``syncEach(_:deadline:report:)``).
    enum ConversationPass: Sendable {
        /// Synced, or stopped by its own problem: what it did is in the report.
        case done(Report)
        /// Not begun: the pass's budget was spent.
        case notBegun
        /// The token or the server's TLS was refused: the pass ends here.
        case endsThePass(Report, SyncError)
    }

    /// Syncs each conversation in turn (``syncConversation(_:head:firstPage:report:)``). In a
    /// store numbered from anchors (Matrix, whose rooms are never grouped) up to
    /// ``Options/conversationsInFlight`` at once: the server answers one while another's pages
    /// are written; otherwise (``Options/conversationsPerCommit`` 1) one at a time, every write
    /// durable before the next conversation begins. Their reports join in the list's order. Conversations not begun when the
    /// budget is spent are counted as left; a refused token or TLS stops the pass from
    /// beginning any more, and is thrown once what the others did is in `report`.
    func syncEach(_ conversations: [ServerConversation], deadline: PassDeadline, report: inout Report) async throws {
        let outcomes = await Self.inPool(
            conversations, width: session.capabilities.anchoredNumbering ? max(options.conversationsInFlight, 1) : 1,
            stoppingAfter: { if case .endsThePass = $0 { true } else { false } }
        ) { conversation in
            await self.syncOne(conversation, deadline: deadline)
        }
        var ending: SyncError?
        var notBegun: [ConversationID] = []
        for (conversation, outcome) in zip(conversations, outcomes) {
            switch outcome {
            case .done(let part)?:
                report.add(part)
            case .endsThePass(let part, let error)?:
                report.add(part)
                if ending == nil { ending = error }
            case .notBegun?, nil:
                notBegun.append(conversation.id)
            }
        }
        if let ending { throw ending }
        if !notBegun.isEmpty {
            report.record(SyncError.passBudgetSpent(server, beforeSyncing: notBegun, budget: deadline.budget))
            for id in notBegun { report.stillPending += (try? await store.pendingOutbox(id).count) ?? 0 }
        }
    }

    /// One conversation's part of ``syncEach(_:deadline:report:)``.
    private func syncOne(_ conversation: ServerConversation, deadline: PassDeadline) async -> ConversationPass {
        if deadline.isOver() { return .notBegun }
        let id = conversation.id
        var report = Report()
        do {
            try await syncConversation(id, head: conversation.head, report: &report)
        } catch {
            if let refused = error as? SyncError, Self.endsThePass(refused) { return .endsThePass(report, refused) }
            // One conversation's broken answer or failed write (a full disk) ends that
            // conversation's work, not the pass; what was stored before stays counted.
            report.record(error, in: id)
            noteStopped(id, error)
            report.stillPending += (try? await store.pendingOutbox(id).count) ?? 0
        }
        return .done(report)
    }

    /// Lists the server's conversations, checks the token is this store's user, and writes
    /// each conversation's details. Returns their IDs.
    func discover() async throws -> [ConversationID] {
        try await discoverConversations().map(\.id)
    }

    /// ``discover()`` with what the list says of each conversation (its last sequence);
    /// `saving` false leaves the details to the caller.
    func discoverConversations(saving: Bool = true) async throws -> [ServerConversation] {
        let me: UserID
        do {
            me = try await retrying { api in try await api.me() }
        } catch let SyncError.rejected(status, message) {
            // GET /v1/me is the one request every chatdir server answers: a 403 refuses the token
            // itself; any other 4xx (a 404 from a web server) means this is not a chatdir server.
            if status == 403 { throw SyncError.unauthorized("403: \(message)") }
            throw SyncError.contract(
                "GET /v1/me answered \(status) (\(message)); \(server) does not look like a chatdir server: check --server or the store's server"
            )
        }
        let mine = await store.me
        guard me == mine else {
            throw SyncError.unauthorized("it is \(me)'s token but this store is \(mine)'s; use \(mine)'s token")
        }
        let conversations = try await retrying { api in try await api.conversations() }
        for conversation in conversations where saving {
            try await store.saveInfo(conversation.info, for: conversation.id)
        }
        await store.recordInvitations(await session.invitations())
        return conversations
    }

    /// `head` is the last sequence the conversation list gave: the pass catches up that far.
    /// `firstPage`, fetched already (by a grouped pass), is used instead of asking again.
    func syncConversation(_ id: ConversationID, head: Int? = nil, firstPage: FetchedPage? = nil, report: inout Report)
        async throws
    {
        _ = try await store.removeAcceptedOutboxFiles(in: id)
        let caughtUp = try await catchUp(
            id, from: nil, until: head, firstPage: firstPage, inserted: &report.newMessages)
        report.newMessages += try await completeFirstHistory(id)
        if caughtUp.moreRemain {
            report.problems.append(
                "\(id): stopped catching up after \(options.catchUpPageBudget) pages at sequence \(caughtUp.through); more remain, run `chatdir sync` again"
            )
        }
        let positions = try await serverPositions(id)
        let stored = try await store.mergeServerPositions(positions, in: id)
        try await postDelivered(id, known: stored)
        report.add(try await drainOutbox(id, patient: true), in: id)
        try await postRead(id)
    }

    // MARK: - Catch-up and history

    /// Fetches everything after `start` (default: the end of the run of stored sequences at
    /// the head), page by page while the server has more, fetching the next page while the
    /// current one is written. Returns how many messages were new, and the sequence through
    /// which everything is now stored.
    @discardableResult
    func catchUp(_ id: ConversationID, from start: Int? = nil) async throws -> (inserted: Int, through: Int) {
        var inserted = 0
        let through = try await catchUp(id, from: start, until: nil, inserted: &inserted).through
        return (inserted, through)
    }

    /// The catch-up proper. Each page is checked as a whole before it is written
    /// (``SyncStore/saveFromServer(_:in:after:before:what:)``); the first request starts one
    /// before the stored point, so the server must show the newest stored record again and a
    /// server whose history went backwards (or differs) is found before anything is saved or
    /// sent. Stops at `until` (the head the server had when the pass began) or after
    /// ``Options/catchUpPageBudget`` pages (`moreRemain`). `inserted` counts as pages are
    /// stored, so a failure later leaves the count of what was stored.
    func catchUp(
        _ id: ConversationID, from start: Int?, until head: Int?, firstPage: FetchedPage? = nil, inserted: inout Int
    ) async throws -> (through: Int, moreRemain: Bool) {
        var after: Int
        if let start { after = start } else { after = try await store.catchUpPoint(id) }
        // The stored record the server must send again, first on the first page.
        var overlap = try await store.storedMessage(id, sequence: after)
        var request = overlap == nil ? after : after - 1
        var fetched = 0
        var pages = 0
        var moreRemain = false
        var next: Task<MessagesPage, Error>?
        if let firstPage, firstPage.after == request {
            next = Task { firstPage.page }
        } else {
            next = Self.fetch(api, id, after: request, limit: options.pageSize, options: options)
        }
        while let current = next {
            // The page is fetched in its own task (so the next one loads while this one is
            // saved), which does not inherit cancellation: pass it on, or a stopped worker keeps
            // retrying a failing page for the whole retry budget.
            let page = try await withTaskCancellationHandler {
                try await current.value
            } onCancel: {
                current.cancel()
            }
            next = nil
            pages += 1
            let what = "the catch-up page after sequence \(request)"
            guard let last = try Self.check(page, overlapping: overlap, after: after, request: request) else { break }
            overlap = nil
            let pageAfter = request
            after = max(after, last.sequence)
            request = after
            let reachedHead = head.map { after >= $0 } ?? false
            if page.hasMore, !reachedHead {
                if pages < options.catchUpPageBudget {
                    next = Self.fetch(api, id, after: request, limit: options.pageSize, options: options)
                } else {
                    moreRemain = true
                }
            }
            do {
                inserted += try await store.saveFromServer(page.items, in: id, after: pageAfter, what: what).inserted
                    .count
                clearTyping(of: page.items, in: id)
            } catch {
                next?.cancel()
                throw error
            }
            fetched += page.items.count
            if next != nil, pages % options.progressEveryPages == 0 {
                progress?(
                    SyncProgress(
                        conversation: id, work: .catchUp, fetched: fetched, remaining: head.map { max($0 - after, 0) }))
            }
        }
        try await store.recordCaughtUp(id, through: after)
        metrics?.caughtUp(id)
        return (after, moreRemain)
    }

    /// A catch-up page already fetched, and the sequence it was asked for after.
    struct FetchedPage: Sendable {
        var page: MessagesPage
        var after: Int
    }

    /// The checks a catch-up page passes before anything of it is saved: the first page shows
    /// the newest stored record (`overlap`) again, and `hasMore` comes with messages past
    /// `after`. Returns the page's last message, nil for an empty page (the catch-up ends).
    nonisolated static func check(_ page: MessagesPage, overlapping overlap: Message?, after: Int, request: Int)
        throws(SyncError) -> Message?
    {
        let what = "the catch-up page after sequence \(request)"
        if let expected = overlap, page.items.first?.sequence != expected.sequence {
            throw SyncError.historyDiffers(
                at: expected.sequence,
                "the store holds \(expected.clientMessageID) there, the server sent \(page.items.first.map { "sequence \($0.sequence) first" } ?? "nothing") for the page after \(request)"
            )
        }
        guard let last = page.items.last else {
            if page.hasMore { throw SyncError.contract("\(what): no messages, yet \"hasMore\" is true") }
            return nil
        }
        if last.sequence <= after, page.hasMore {
            throw SyncError.contract("\(what): nothing past sequence \(after), yet \"hasMore\" is true")
        }
        return last
    }

    private nonisolated static func fetch(
        _ api: any ServerSession, _ id: ConversationID, after: Int, limit: Int, options: Options
    ) -> Task<MessagesPage, Error> {
        Task {
            try await retrying(api, options: options) { api in try await api.messages(id, .after(after), limit: limit) }
        }
    }

    /// Runs an idempotent request, retrying temporary failures with backoff (Retry-After
    /// honoured) up to ``Options/attemptsPerPass`` times (``SyncError/isRetryable``). Unreachable,
    /// rejected, unauthorized and broken answers are not retried here.
    func retrying<T: Sendable>(_ request: @Sendable (any ServerSession) async throws -> T) async throws -> T {
        try await Self.retrying(api, options: options, request)
    }

    nonisolated static func retrying<T: Sendable>(
        _ api: any ServerSession, options: Options, _ request: @Sendable (any ServerSession) async throws -> T
    ) async throws -> T {
        var backoff = options.backoff
        var attempt = 0
        while true {
            do {
                return try await request(api)
            } catch let error as SyncError where error.isRetryable {
                attempt += 1
                let delay = backoff.failure(retryAfter: error.retryAfter)
                if attempt >= options.attemptsPerPass || delay > options.longestPassWait
                    || api.passDeadline?.isOver() == true
                {
                    throw error
                }
                if let pass = api.passDeadline, pass.leavesNoTime(for: delay) {
                    throw SyncError.noTimeToRetry(error.reason, budget: pass.budget, retryAfter: error.retryAfter)
                }
                try await Task.sleep(for: delay)
            }
        }
    }

    /// Fetches older pages before the oldest stored message until the server has no more
    /// (or `pages` pages). Returns how many messages were stored.
    public func history(_ id: ConversationID, pages: Int?) async throws -> Int {
        _ = try await discover()
        return try await fetchOlder(id, pages: pages, messages: nil).inserted
    }

    /// In a store numbered from an anchor (``ServerCapabilities/anchoredNumbering``), a first
    /// catch-up starts at the anchor; this pages back from the oldest stored message until the
    /// ``Options/firstSyncHistory`` messages below the anchor are stored, or the conversation's
    /// first message is, then records that in `.history-complete`. Every pass asks (a marker
    /// read, once it is there), so a first sync cut short by its budget, a kill or the network
    /// goes on with the next pass, and every device ends with the same history. Returns how
    /// many messages were new.
    func completeFirstHistory(_ id: ConversationID) async throws -> Int {
        guard session.capabilities.anchoredNumbering, options.firstSyncHistory > 0,
            await store.historyCompleteMarker(id) == nil, let oldest = try await store.oldestSequence(id),
            let anchor = try await retrying({ api in try await api.historyAnchor(id) })
        else { return 0 }
        let goal = max(anchor - options.firstSyncHistory, 1)
        var fetched = OlderFetch(inserted: 0, reachedStart: oldest == 1)
        if oldest > goal { fetched = try await fetchOlder(id, pages: nil, messages: oldest - goal) }
        let lowest = try await store.oldestSequence(id) ?? oldest
        if lowest <= goal || fetched.reachedStart { try await store.recordHistoryComplete(id, from: lowest) }
        return fetched.inserted
    }

    /// What ``fetchOlder(_:pages:messages:)`` did.
    struct OlderFetch: Sendable, Equatable {
        /// Messages stored that were not before.
        var inserted: Int
        /// Nothing older is left: sequence 1 is stored, or the server had nothing before the oldest.
        var reachedStart: Bool
    }

    /// Stores older pages before the oldest stored message until the server has no more, or
    /// `pages` pages, or `messages` messages were stored. Returns how many were.
    func fetchOlder(_ id: ConversationID, pages: Int?, messages: Int?) async throws -> OlderFetch {
        var inserted = 0
        var fetchedPages = 0
        while pages.map({ fetchedPages < $0 }) ?? true, messages.map({ inserted < $0 }) ?? true {
            let oldest = try await store.oldestSequence(id)
            if oldest == 1 { return OlderFetch(inserted: inserted, reachedStart: true) }
            let pageSize = min(options.pageSize, messages.map { $0 - inserted } ?? options.pageSize)
            let page = try await retrying { api in
                try await api.messages(id, oldest.map { .before($0) } ?? .newest, limit: pageSize)
            }
            fetchedPages += 1
            guard !page.items.isEmpty else { return OlderFetch(inserted: inserted, reachedStart: true) }
            inserted += try await store.saveFromServer(
                page.items, in: id, before: oldest,
                what: "the history page before sequence \(oldest.map(String.init) ?? "the newest")"
            ).inserted.count
            let left = page.items.first.map { max($0.sequence - 1, 0) }
            let pagesLeft = pages.map { max($0 - fetchedPages, 0) * options.pageSize }
            progress?(
                SyncProgress(
                    conversation: id, work: .history, fetched: inserted,
                    remaining: [left, pagesLeft].compactMap { $0 }.min()))
            if !page.hasMore { return OlderFetch(inserted: inserted, reachedStart: true) }
        }
        return OlderFetch(inserted: inserted, reachedStart: try await store.oldestSequence(id) == 1)
    }

    /// Joins `room` (a Matrix room ID or alias: an invitation accepted, or a public room) and
    /// returns its conversation; the next pass syncs it. A wire v1 server has nothing to join.
    public func join(_ room: String) async throws -> ConversationID {
        try await api.join(room)
    }

    // MARK: - Positions

    /// Every member's positions in `id` as the server has them, retried like any idempotent
    /// request; none when the protocol cannot be asked (its positions come as live updates).
    func serverPositions(_ id: ConversationID) async throws -> Positions {
        try await Self.serverPositions(api, id, options: options)
    }

    nonisolated static func serverPositions(_ api: any ServerSession, _ id: ConversationID, options: Options)
        async throws -> Positions
    {
        guard api.capabilities.positionsOnRequest else { return Positions() }
        return try await retrying(api, options: options) { api in try await api.positions(id) }
    }

    /// Posts my delivered position up to the end of the stored run, when the server is behind
    /// (and has delivered positions at all).
    func postDelivered(_ id: ConversationID, known positions: Positions) async throws {
        guard session.capabilities.deliveredPositions else { return }
        let me = await store.me
        let high = try await store.catchUpPoint(id)
        guard high > positions[me].deliveredUpTo else { return }
        let confirmed = try await retrying { api in try await api.postDelivered(id, upTo: high) }
        try await store.mergeServerPositions(
            Positions([me: MemberPosition(deliveredUpTo: confirmed, readUpTo: 0)]), in: id)
    }

    /// Posts the read position the user asked for (`outbox/read.json`) when the server is behind,
    /// then removes the wish (docs/FORMAT.md: it is the position not yet accepted). An answer
    /// lower than wanted settles it too (the server has no messages that far): posted again it
    /// would never get further, and kept it would mark later messages read. A wish the server
    /// already has (at or below its position) is removed without posting.
    func postRead(_ id: ConversationID) async throws {
        guard let wanted = try await store.wantedReadPosition(id) else { return }
        let me = await store.me
        let current = try await store.positions(id)?[me].readUpTo ?? 0
        guard wanted > current else {
            try await store.settleRead(id, posted: current)
            return
        }
        let confirmed = try await retrying { api in try await api.postRead(id, upTo: wanted) }
        // Read is delivered too, where a protocol has delivered positions at all.
        let delivered = session.capabilities.deliveredPositions ? confirmed : 0
        try await store.mergeServerPositions(
            Positions([me: MemberPosition(deliveredUpTo: delivered, readUpTo: confirmed)]), in: id)
        // Removed unless a newer `read` raised the wish meanwhile (settleRead checks under the lock).
        try await store.settleRead(id, posted: wanted)
    }

    // MARK: - Outbox

    struct DrainOutcome {
        var sent = 0
        var failed: [String] = []
        var stillPending = 0
        var problem: String?
        /// When the next attempt may be made, after a temporary failure.
        var retryAfter: Duration?
        /// Messages the server accepted without placing them that a catch-up did not bring yet:
        /// their outbox files stay, and they are not delivered again (``awaitingPlacement``).
        var unplaced = 0
    }

    /// Delivers pending messages oldest first, one at a time, each with its own client message
    /// ID on every attempt. Rejected → that message fails and the queue moves on; temporary →
    /// the queue stops here (order is kept) and the rest stays pending. `patient` retries a
    /// temporary failure with backoff a few times (one-pass sync); otherwise the caller decides.
    /// A message accepted without its place (``Delivery/accepted``) counts as sent and is never
    /// delivered again; a catch-up after the drain places it (``placeAccepted(_:holding:)``).
    func drainOutbox(_ id: ConversationID, patient: Bool) async throws -> DrainOutcome {
        var outcome = DrainOutcome()
        var accepted = AcceptedBatch()
        var unplaced: [OutboxClaim] = []
        var backoff = options.backoff
        try await forgetPlaced(in: id)
        let queue = try await store.pendingOutbox(id)
        // Started here and not yet on the server (or refused there): its messages wait for it.
        if try await store.queuedCreation(id) != nil {
            outcome.stillPending = queue.count
            return outcome
        }
        var index = 0
        var attempts = 0
        while index < queue.count {
            let entry = queue[index]
            if awaitingPlacement[id]?.contains(entry.clientMessageID) == true {
                index += 1
                continue
            }
            // Held from before the POST until its answer is written down, so `chatdir cancel`
            // waits for this attempt instead of removing a message the server may be accepting.
            guard let claim = await store.claim(entry, in: id) else {
                index += 1
                continue
            }
            do {
                switch try await api.deliver(id, clientMessageID: entry.clientMessageID, text: entry.text) {
                case .placed(let message):
                    accepted.append(message, claim)
                    if accepted.count >= options.acceptBatch { try await flush(&accepted, into: &outcome, in: id) }
                case .accepted:
                    awaitingPlacement[id, default: []].insert(entry.clientMessageID)
                    // Held until the catch-up stores it: a cancel meanwhile finds it sent.
                    unplaced.append(claim)
                    outcome.sent += 1
                }
                index += 1
                attempts = 0
                backoff.reset()
            } catch let error as SyncError {
                defer { claim.release() }
                switch error {
                case .rejected:
                    try await flush(&accepted, into: &outcome, in: id)
                    try await store.markFailed(entry.clientMessageID, reason: error.description, in: id)
                    outcome.failed.append("\(id) \(entry.clientMessageID): \(error)")
                    index += 1
                case .temporary, .transport:
                    attempts += 1
                    let delay = backoff.failure(retryAfter: error.retryAfter)
                    let giveUp =
                        !patient || attempts >= options.attemptsPerPass || delay > options.longestPassWait
                        || passDeadline?.leavesNoTime(for: delay) == true || !error.isRetryable
                    if giveUp {
                        try await flush(&accepted, into: &outcome, in: id)
                        outcome.stillPending = queue.count - index
                        var problem = error.description
                        do {
                            try await store.recordAttempt(entry.clientMessageID, in: id)
                        } catch let counting {
                            // The message stays pending either way; a failing disk is still said.
                            problem += "; counting the attempt failed: \(counting)"
                        }
                        outcome.problem = problem
                        outcome.retryAfter = delay
                        outcome.unplaced = try await placeAccepted(id, holding: unplaced)
                        return outcome
                    }
                    // Not held while waiting: a cancel may take the message now.
                    claim.release()
                    try await Task.sleep(for: delay)
                case .unauthorized, .contract, .untrusted:
                    try await flush(&accepted, into: &outcome, in: id)
                    throw error
                }
            }
        }
        try await flush(&accepted, into: &outcome, in: id)
        outcome.unplaced = try await placeAccepted(id, holding: unplaced)
        return outcome
    }

    /// After the server accepted messages without placing them (their claims in `claims`): a
    /// catch-up of `id` brings them with their sequences, then the outbox files of those stored
    /// go. Returns how many are still not stored (they stay in the outbox, not delivered again).
    private func placeAccepted(_ id: ConversationID, holding claims: [OutboxClaim]) async throws -> Int {
        guard !claims.isEmpty else { return 0 }
        defer { claims.forEach { $0.release() } }
        try await catchUp(id)
        try await forgetPlaced(in: id)
        return awaitingPlacement[id]?.count ?? 0
    }

    /// Removes the outbox files of accepted messages that are stored now, and stops waiting for
    /// their places.
    private func forgetPlaced(in id: ConversationID) async throws {
        guard let waiting = awaitingPlacement[id] else { return }
        let left = waiting.subtracting(try await store.removeAcceptedOutboxFiles(in: id))
        awaitingPlacement[id] = left.isEmpty ? nil : left
    }
}

extension SyncEngine {
    /// Messages the server accepted and not yet written down, with their delivery claims.
    struct AcceptedBatch {
        var messages: [Message] = []
        var claims: [OutboxClaim] = []
        var count: Int { messages.count }

        mutating func append(_ message: Message, _ claim: OutboxClaim) {
            messages.append(message)
            claims.append(claim)
        }
    }

    /// Writes accepted messages into their segments and removes their outbox files, then lets
    /// go of their claims (a cancel waiting for one of them finds it stored: already sent).
    private func flush(_ accepted: inout AcceptedBatch, into outcome: inout DrainOutcome, in id: ConversationID)
        async throws
    {
        guard !accepted.messages.isEmpty else { return }
        try await store.acceptFromServer(accepted.messages, in: id)
        outcome.sent += accepted.count
        metrics?.delivered(queuedAt: accepted.claims.map(\.entry.ordinal))
        accepted.claims.forEach { $0.release() }
        accepted = AcceptedBatch()
    }
}

extension SyncStore {
    /// Where catching up starts: the lower of the marker and the end of the run of stored
    /// sequences at the head (read from the newest two segments). Holes above the marker (an
    /// own message accepted before the one ahead of it was fetched, then a crash) are filled.
    /// `assumingMarker`: the marker about to be recorded, in place of the stored one (a grouped
    /// pass posts delivered positions before it writes the markers).
    ///
    /// In a Matrix store a marker of 0 counts only while nothing is stored: the first messages
    /// stored are numbered from the room's anchor, and what lies below them is older history,
    /// not a hole (a kill between their segment and the marker left that 0 behind).
    func catchUpPoint(_ id: ConversationID, assumingMarker: Int? = nil) throws(StoreError) -> Int {
        let conversation = store.conversation(id)
        let ranges = try conversation.segmentRanges().suffix(2)
        var sequences: [Int] = []
        for range in ranges { sequences += try conversation.readSegment(range).map(\.sequence) }
        guard let low = sequences.min() else { return 0 }
        let head = contiguousHigh(from: low - 1, in: sequences)
        let zeroIsTheStart = conversation.storeProtocol != .matrix
        guard let marker = assumingMarker ?? caughtUpMarker(id), marker <= head,
            try conversation.readSegment(SegmentRange(containing: max(marker, 1), size: store.manifest.segmentSize))
                .contains(where: { $0.sequence == marker }) || (marker == 0 && zeroIsTheStart)
        else { return head }
        return marker
    }
}
