import ChatDomain
import ChatProtocol
import ChatStore
import Synchronization

/// The live worker (`chatdir sync --live`): stays connected, saves what arrives, fills gaps,
/// delivers the outbox as it fills, posts positions; reconnects with backoff and catches up
/// after every reconnect. Runs until its task is cancelled, finishing the write in progress.
extension SyncEngine {
    /// The live worker's state: one state machine per conversation, and what is the worker's own.
    struct LiveState {
        var conversations: [ConversationID: ConversationLiveState] = [:]
        /// When the last discovery for an unknown conversation ran, and whether a deferred one waits.
        var lastDiscovery: ContinuousClock.Instant?
        var discoveryScheduled = false
        /// Requests started in the background (delivered posts, gap checks), cancelled when the
        /// worker stops so nothing writes into the store after it returns.
        var background: [Int: Task<Void, Never>] = [:]
        var nextBackgroundKey = 0
        /// The live connection, from one dial to the next.
        var link = LiveConnectionState()
        /// Whether the live socket is up.
        var connected: Bool { link.isConnected }
        /// When the live socket last brought an event.
        var lastActivity = ContinuousClock.now
        /// Where the state machines' reports go (the log of ``SyncEngine/runLive(log:)``).
        var log: (@Sendable (String) -> Void)?
        /// Which of my typing signals go to the server, and whether it has the endpoint at all.
        var typing = TypingThrottle()
        /// Conversations whose older-page wish is being fetched, and wishes answered where the
        /// answer could not be written (so they are not fetched again and again).
        var olderBusy: Set<ConversationID> = []
        var olderAnswered: [ConversationID: Int] = [:]
        /// Conversations caught up before this worker's first delivery to them, and since its
        /// last failed one (``ServerCapabilities/remembersClientMessageIDs``).
        var caughtUpBeforeDelivery: Set<ConversationID> = []
        /// Whether the first-sync history of the conversations is being paged (``SyncEngine/completeFirstHistories(log:)``).
        var historyRunning = false

        /// The conversations whose holes are tracked.
        var followed: [ConversationID] { conversations.filter(\.value.isFollowed).map(\.key) }
    }

    /// Runs until cancelled (returns nil) or until the server refuses the token (returns that error).
    /// The runtime channel is followed alongside, and has stopped (its watcher too) when this returns.
    public func runLive(log: @escaping @Sendable (String) -> Void) async -> SyncError? {
        let channel = Task { await self.followRuntimeChannel(log: log) }
        let result = await runLiveConnection(log: log)
        channel.cancel()
        await channel.value
        // What the channel started after the connection's end cancelled the rest (an older page).
        liveState.background.values.forEach { $0.cancel() }
        liveState.background.removeAll()
        return result
    }

    /// The live connection, the outbox and the background work of ``runLive(log:)``.
    private func runLiveConnection(log: @escaping @Sendable (String) -> Void) async -> SyncError? {
        liveState.link = LiveConnectionState(
            pacer: ReconnectPacer(
                backoff: options.reconnectBackoff ?? options.backoff, healthyAfter: options.healthyConnection),
            untrustedWait: options.untrustedReconnectWait)
        liveState.log = log
        liveState.typing.interval = options.typingInterval
        let outbox = Task { await self.followOutbox(log: log) }
        defer {
            outbox.cancel()
            liveState.background.values.forEach { $0.cancel() }
            liveState.background.removeAll()
            for id in liveState.conversations.keys { _ = liveState.conversations[id]?.handle(.stopped, at: .now) }
        }
        while !Task.isCancelled {
            // Made anew for each connection: it carries the token of the moment (see renewToken).
            let connectedWith = token
            liveState.link.dial()
            // Each batch is what arrived while the previous one was being applied: its live
            // messages are committed together, one write per touched segment (LiveBatch). The
            // stream is the loop's alone: leaving the loop lets go of it, which closes the connection.
            events: for await batch in session.liveUpdates(limit: Self.liveBatchLimit) {
                var pending = LiveBatch()
                for event in batch {
                    // What must come after the messages before it are durable does: a receipt
                    // never stored ahead of a message it covers, a reconnect's catch-up after
                    // the commit. (My own delivered position echoed back covers nothing pending.)
                    switch event {
                    case .event(.message), .event(.typing), .ignored: break
                    case .event(.receipt(let id, _, let position)):
                        if pending.holds(in: id, atOrBelow: max(position.deliveredUpTo, position.readUpTo)) {
                            await commit(&pending)
                        }
                    case .event(.conversation(let id, _, _)), .changed(let id):
                        if pending.pending[id] != nil { await commit(&pending) }
                    case .connected, .disconnected: await commit(&pending)
                    }
                    switch event {
                    case .connected:
                        liveState.link.connected(at: .now)
                        metrics?.connected()
                        liveState.lastActivity = .now
                        log("connected to \(server); catching up")
                        do {
                            try await catchUpEverything()
                            log("caught up")
                            startFirstHistories(log: log)
                        } catch let error as SyncError {
                            if case .unauthorized = error {
                                log(error.description)
                                guard await renewToken(refused: connectedWith, log: log) else { return error }
                                liveState.link.tokenRenewed()
                                break events
                            }
                            log("catch-up failed: \(error)")
                        } catch {
                            if Task.isCancelled { return nil }
                            log("catch-up failed: \(error)")
                        }
                    case .event(let liveEvent):
                        liveState.lastActivity = .now
                        do {
                            try await apply(liveEvent, batch: &pending)
                        } catch {
                            log("could not apply a live event: \(error)")
                        }
                    case .changed(let id):
                        liveState.lastActivity = .now
                        do {
                            try await catchUpAnnounced(id)
                        } catch {
                            log("\(id): catch-up failed: \(error)")
                        }
                    case .ignored(let reason):
                        log("ignored a live frame: \(reason)")
                    case .disconnected(let error):
                        liveState.link.disconnected(error)
                        if !Task.isCancelled { metrics?.disconnected(problem: error.description) }
                        if case .unauthorized = error {
                            log(error.description)
                            guard await renewToken(refused: connectedWith, log: log) else { return error }
                            liveState.link.tokenRenewed()
                            break events
                        }
                        if !Task.isCancelled { log("live connection lost: \(error)") }
                    }
                }
                await commit(&pending)
            }
            if Task.isCancelled { break }
            guard case .wait(let delay, let floor, let wakeable) = liveState.link.streamEnded(at: .now) else {
                // A new token: straight back, the refusal was the old token's, not the server's state.
                continue
            }
            metrics?.nextTry(in: delay)
            log("reconnecting in \(delay.shortDescription)")
            // Any other request that succeeds proves the server is back: the live connection
            // does not sit out the rest of its backoff while the outbox already goes out. What
            // the server asked for (Retry-After) or a refused certificate's wait is waited whole.
            do {
                try await Task.sleep(for: floor)
                if !wakeable {
                    try await Task.sleep(for: delay - floor)
                } else if try await reconnectWake.wait(delay - floor) {
                    liveState.link.wokenEarly()
                    log("\(server) answered another request: reconnecting now")
                }
            } catch { break }
        }
        return nil
    }

    /// After (re)connecting: every conversation caught up, receipts fetched, positions posted.
    /// Catching up starts at the lower of the store's head run and a hole this worker still
    /// knows of, so a hole left open across a reconnect is filled, not skipped.
    /// A conversation whose catch-up fails (a broken answer, a failed write) does not hold up
    /// the others: the first such error is thrown once every conversation had its turn. A
    /// refused token begins no more of them. In a store numbered from anchors (Matrix) up to
    /// ``Options/conversationsInFlight`` conversations catch up at once, as a one-pass sync
    /// takes them; a wire v1 store's one at a time.
    func catchUpEverything() async throws {
        let ids = try await discover()
        let width = session.capabilities.anchoredNumbering ? max(options.conversationsInFlight, 1) : 1
        let failures = await Self.inPool(ids, width: width, stoppingAfter: Self.isRefusedToken) { id in
            do {
                try await self.catchUpLive(id)
                return nil
            } catch {
                return error
            }
        }
        let errors = failures.compactMap { $0 ?? nil }
        if let refused = errors.first(where: { Self.isRefusedToken($0) }) { throw refused }
        if let first = errors.first { throw first }
    }

    private nonisolated static func isRefusedToken(_ error: (any Error)?) -> Bool {
        if case SyncError.unauthorized? = error { true } else { false }
    }

    /// Whether the server lists conversation `id`. A stored conversation is listed; for an
    /// unknown one the worker discovers at most once per ``Options/discoveryInterval`` (one
    /// deferred discovery catches up what the skipped events announced). An event for a
    /// conversation the server does not list is ignored: a server cannot grow the worker's
    /// state, or its request rate, by inventing conversation IDs.
    private func isListed(_ id: ConversationID) async throws -> Bool {
        if try await store.info(id) != nil { return true }
        if let last = liveState.lastDiscovery, ContinuousClock.now - last < options.discoveryInterval {
            scheduleDiscovery(at: last + options.discoveryInterval)
            return false
        }
        // The interval counts from the end of a discovery as well as its start: one slowed by a
        // busy disk (it writes each conversation's details) must not let the next event start
        // another at once.
        liveState.lastDiscovery = .now
        defer { liveState.lastDiscovery = .now }
        _ = try await discover()
        return try await store.info(id) != nil
    }

    /// One discovery at `instant`, then a catch-up of every listed conversation not yet followed.
    private func scheduleDiscovery(at instant: ContinuousClock.Instant) {
        guard !liveState.discoveryScheduled else { return }
        liveState.discoveryScheduled = true
        remember(
            Task { [weak self] in
                try? await Task.sleep(until: instant)
                await self?.runDeferredDiscovery()
            })
    }

    /// A failure is reported like an idle or gap catch-up's (`<id>: deferred catch-up failed: …`),
    /// not dropped: it may be a full disk, and the events that asked for it are gone.
    private func runDeferredDiscovery() async {
        liveState.discoveryScheduled = false
        guard !Task.isCancelled else { return }
        liveState.lastDiscovery = .now
        let listed: [ConversationID]
        do {
            listed = try await discover()
            liveState.lastDiscovery = .now
        } catch {
            if !Task.isCancelled { liveState.log?("deferred discovery failed: \(error)") }
            return
        }
        for id in listed where liveState.conversations[id]?.isFollowed != true {
            do {
                try await catchUpLive(id)
            } catch {
                if Task.isCancelled { return }
                liveState.log?("\(id): deferred catch-up failed: \(error)")
            }
        }
    }

    /// In a store numbered from an anchor (Matrix), pages the first-sync history of every
    /// conversation in the background, ``Options/conversationsInFlight`` conversations at a
    /// time (as a one-pass sync takes them), while live messages go on
    /// (older pages are stored below the oldest message, live ones above the newest). At most
    /// one such run at a time; each reconnect starts one if none runs, which reads only the
    /// `.history-complete` markers once everything is stored.
    private func startFirstHistories(log: @escaping @Sendable (String) -> Void) {
        guard session.capabilities.anchoredNumbering, options.firstSyncHistory > 0, !liveState.historyRunning else {
            return
        }
        liveState.historyRunning = true
        remember(Task { [weak self] in await self?.completeFirstHistories(log: log) })
    }

    private func completeFirstHistories(log: @escaping @Sendable (String) -> Void) async {
        defer { liveState.historyRunning = false }
        let conversations = (try? await store.knownConversations()) ?? []
        _ = await Self.inPool(conversations, width: max(options.conversationsInFlight, 1)) { id in
            await self.completeFirstHistoryLogging(id, log: log)
        }
    }

    /// One conversation of ``completeFirstHistories(log:)``, its outcome logged.
    private func completeFirstHistoryLogging(_ id: ConversationID, log: @escaping @Sendable (String) -> Void) async {
        if Task.isCancelled { return }
        do {
            let inserted = try await completeFirstHistory(id)
            if inserted > 0 { log("\(id): stored \(inserted) older messages") }
        } catch {
            if Task.isCancelled { return }
            log("\(id): older history: \(error)")
        }
    }

    /// One conversation of ``catchUpEverything()``.
    private func catchUpLive(_ id: ConversationID) async throws {
        _ = try await store.removeAcceptedOutboxFiles(in: id)
        let head = try await store.catchUpPoint(id)
        if let error = await drive(id, .reconnected(head: head)) { throw error }
    }

    /// The most events taken from the live socket's queue at once (one batch, one commit).
    static let liveBatchLimit = 1000

    /// Saves a live event. A message past a hole is saved at once; the hole gets a short
    /// grace period, then a catch-up. A message for an unknown conversation first discovers it.
    func apply(_ event: LiveEvent) async throws {
        var batch = LiveBatch()
        do {
            try await apply(event, batch: &batch)
        } catch {
            await commit(&batch)
            throw error
        }
        if let failure = await commit(&batch) { throw failure }
    }

    /// ``apply(_:)``, with a message's save left in `batch` for ``commit(_:)`` (the caller's
    /// to call, before anything that must come after the message is durable).
    func apply(_ event: LiveEvent, batch: inout LiveBatch) async throws {
        switch event {
        case .message(let id, let message):
            if liveState.conversations[id]?.isFollowed != true {
                guard try await isListed(id) else { return }
                let point = try await store.catchUpPoint(id)
                await drive(id, .follow(from: point))
            }
            batch.endTyping(of: message.senderID, in: id)
            if let error = await drive(id, .liveMessage(message), batch: &batch) { throw error }
        case .typing(let id, let member):
            guard member != (await store.me), try await store.info(id)?.members.contains(member) == true else { return }
            batch.resumeTyping(of: member, in: id)
            noteTyping(id, member)
        case .conversation(let id, _, _):
            // Started just now (a v1 extension): confirmed by the conversation list, then followed.
            guard liveState.conversations[id]?.isFollowed != true, try await isListed(id) else { return }
            await drive(id, .follow(from: try await store.catchUpPoint(id)))
        case .receipt(let id, let member, let position):
            guard try await store.info(id) != nil else { return }
            try await store.mergeServerPositions(Positions([member: position]), in: id)
            let mine = member == (await store.me)
            await drive(id, .receipt(position, mine: mine))
        }
    }

    /// A conversation started here that now lives in its room's folder: followed at once, so
    /// the room's messages (its own, sent next) are caught up as the homeserver announces them.
    func followStarted(_ id: ConversationID) async {
        guard liveState.conversations[id]?.isFollowed != true, let point = try? await store.catchUpPoint(id) else {
            return
        }
        await drive(id, .follow(from: point))
    }

    /// A conversation the server announced news in without carrying it (``LiveUpdate/changed(_:)``):
    /// followed if it was not, then caught up and its positions merged.
    private func catchUpAnnounced(_ id: ConversationID) async throws {
        if liveState.conversations[id]?.isFollowed != true {
            guard try await isListed(id) else { return }
            await drive(id, .follow(from: try await store.catchUpPoint(id)))
        }
        // A failure is the state machine's to report (``ConversationLiveState/Cause/announced``).
        await drive(id, .announced)
    }

    /// A dropped last event leaves a hole nothing reveals; after ``Options/idleCatchUp`` without
    /// events, catch up anyway (one request per conversation).
    /// A failure is reported like a gap catch-up's (a full disk must not go unsaid: the lost
    /// event's message is what this brings) and ends this round; the next idle period or
    /// reconnect tries again.
    private func catchUpIfIdle() async {
        guard liveState.connected, ContinuousClock.now - liveState.lastActivity >= options.idleCatchUp else { return }
        liveState.lastActivity = .now
        for id in liveState.followed {
            if await drive(id, .idleDue) != nil { return }
        }
    }

    /// Keeps a background task until it ends, so the worker can cancel it when it stops (a task
    /// dropped while still running could write into the store after the worker returned).
    func remember(_ task: Task<Void, Never>) {
        let key = liveState.nextBackgroundKey
        liveState.nextBackgroundKey += 1
        liveState.background[key] = task
        Task { [weak self] in
            await task.value
            await self?.forgetBackground(key)
        }
    }

    private func forgetBackground(_ key: Int) {
        liveState.background[key] = nil
    }

    /// Feeds `event` to conversation `id`'s state machine and performs the actions it returns,
    /// in order, feeding each outcome back in until nothing is left to do: the one place a
    /// catch-up, its save and what follows them are carried out. Returns the first failed fetch
    /// or save (after the machine had its say), or the failure that met a cancelled worker.
    @discardableResult
    private func drive(_ id: ConversationID, _ event: ConversationLiveState.Event) async -> (any Error)? {
        var none: LiveBatch?
        return await drive(id, event, batch: &none)
    }

    /// ``drive(_:_:)`` with the saves of live messages collected in `batch` (when there is
    /// one) instead of written: ``commit(_:)`` writes them and sends their ``ConversationLiveState/Event/saved(_:)``.
    private func drive(_ id: ConversationID, _ event: ConversationLiveState.Event, batch: inout LiveBatch) async -> (
        any Error
    )? {
        // Moved, not copied: while `batch` still held it, every add would copy what it holds.
        var optional: LiveBatch? = batch
        batch = LiveBatch()
        defer { batch = optional ?? LiveBatch() }
        return await drive(id, event, batch: &optional)
    }

    private func drive(_ id: ConversationID, _ event: ConversationLiveState.Event, batch: inout LiveBatch?) async -> (
        any Error
    )? {
        var events = [event]
        var failure: (any Error)?
        defer { if let failure, !Task.isCancelled { noteStopped(id, failure) } }
        while !events.isEmpty {
            let event = events.removeFirst()
            // Never `await` inside a mutation of actor state: the machine decides, then the awaits.
            let actions = liveState.conversations[id, default: newConversationState].handle(event, at: .now)
            for action in actions {
                switch action {
                case .catchUp(let cause, let from):
                    do {
                        events.append(try await fetchCatchUp(id, cause, from: from))
                    } catch {
                        if Task.isCancelled { return error }
                        failure = failure ?? error
                        events.append(Self.failed(cause, error))
                    }
                case .save(let messages, let cause):
                    if cause == .live, var deferred = batch {
                        batch = nil
                        if !deferred.add(messages, in: id) {
                            await commit(&deferred)
                            _ = deferred.add(messages, in: id)
                        }
                        batch = deferred
                        continue
                    }
                    do {
                        if !messages.isEmpty { try await store.saveFromServer(messages, in: id, what: "live messages") }
                        metrics?.conversationSynced(id)
                        events.append(.saved(cause))
                    } catch {
                        if Task.isCancelled { return error }
                        failure = failure ?? error
                        events.append(Self.failed(cause, error))
                    }
                case .scheduleGapCheck(let instant):
                    remember(
                        Task {
                            try? await Task.sleep(until: instant, clock: .continuous)
                            if !Task.isCancelled { await self.drive(id, .gapCheckDue) }
                        })
                case .sendDelivered(let upTo):
                    remember(
                        Task {
                            let result: Result<Int, ConversationLiveState.DeliveredFailure>
                            do throws(SyncError) {
                                result = .success(try await self.api.postDelivered(id, upTo: upTo))
                            } catch {
                                result = .failure(ConversationLiveState.DeliveredFailure(retryAfter: error.retryAfter))
                            }
                            if !Task.isCancelled { await self.drive(id, .deliveredFinished(result)) }
                        })
                case .storeDelivered(let confirmed):
                    let me = await store.me
                    _ = try? await store.mergeServerPositions(
                        Positions([me: MemberPosition(deliveredUpTo: confirmed, readUpTo: 0)]), in: id)
                case .scheduleDeliveredRetry(let instant):
                    remember(
                        Task {
                            try? await Task.sleep(until: instant, clock: .continuous)
                            if !Task.isCancelled { await self.drive(id, .deliveredRetryDue) }
                        })
                case .report(let line):
                    liveState.log?("\(id): \(line)")
                }
            }
        }
        return failure
    }

    /// Writes what `batch` collected, one save per conversation, then sends each collected
    /// save's ``ConversationLiveState/Event/saved(_:)``, so my delivered position is posted only
    /// once the messages are durable. Leaves `batch` empty; returns the first failed save.
    @discardableResult
    func commit(_ batch: inout LiveBatch) async -> (any Error)? {
        guard !batch.isEmpty else { return nil }
        let taken = batch
        batch = LiveBatch()
        // Before the messages are stored, as each event did it before batching.
        for (id, members) in taken.typingEnded {
            for member in members { runtime.clearTyping(id, user: member) }
        }
        var first: (any Error)?
        for id in taken.order {
            guard let pending = taken.pending[id] else { continue }
            let failure = await saveLive(pending.ascending, in: id)
            first = first ?? failure
            if let failure { noteStopped(id, failure) } else { metrics?.conversationSynced(id) }
            for _ in 0..<pending.saves {
                await drive(id, failure.map { Self.failed(.live, $0) } ?? .saved(.live))
            }
        }
        return first
    }

    /// One write for a batch's live messages in `id`. When the server's history check refuses
    /// the whole (it refuses a page as a whole), each message is tried alone, as each event was
    /// saved before batching, so one bad event does not take the others with it; a failed write
    /// (a full disk) is not tried again message by message, it is the batch's failure. Every
    /// failure is logged as a live event that could not be applied; returns the first.
    private func saveLive(_ messages: [Message], in id: ConversationID) async -> (any Error)? {
        guard !messages.isEmpty else { return nil }
        do {
            try await store.saveFromServer(messages, in: id, what: "live messages")
            return nil
        } catch {
            if messages.count == 1 || Task.isCancelled || !(error is SyncError) {
                liveState.log?("could not apply a live event: \(error)")
                return error
            }
        }
        var first: (any Error)?
        for message in messages {
            do {
                try await store.saveFromServer([message], in: id, what: "live messages")
            } catch {
                liveState.log?("could not apply a live event: \(error)")
                first = first ?? error
            }
        }
        return first
    }

    /// The state of a conversation the worker had none for yet.
    private var newConversationState: ConversationLiveState {
        ConversationLiveState(
            grace: options.gapGrace, backoff: options.backoff,
            postsDelivered: session.capabilities.deliveredPositions)
    }

    /// A failed fetch or save as the state machine sees it: how it failed, and how long the
    /// server asked to wait, if it did (the error itself goes to the caller).
    private static func failed(_ cause: ConversationLiveState.Cause, _ error: any Error) -> ConversationLiveState.Event
    {
        .failed(cause, reason: "\(error)", retryAfter: (error as? SyncError)?.retryAfter)
    }

    /// Performs ``ConversationLiveState/Action/catchUp(_:from:)``: everything after `from`, and
    /// on a reconnect or an announcement the receipts too (my delivered position comes back with the event).
    private func fetchCatchUp(_ id: ConversationID, _ cause: ConversationLiveState.Cause, from: Int) async throws
        -> ConversationLiveState.Event
    {
        var from = from
        // Counted from an anchor, 0 is the start only while nothing is stored (as in
        // SyncStore.catchUpPoint): a room followed while empty whose first messages a drain's
        // catch-up stored since (a room started here) is caught up from those.
        if from == 0, session.capabilities.anchoredNumbering { from = try await store.catchUpPoint(id) }
        let through = try await catchUp(id, from: from).through
        guard cause == .reconnect || cause == .announced else {
            return .caughtUp(cause, through: through, myDelivered: nil)
        }
        let positions = try await store.mergeServerPositions(try await serverPositions(id), in: id)
        let me = await store.me
        return .caughtUp(cause, through: through, myDelivered: positions[me].deliveredUpTo)
    }

    /// Delivers outbox files as they appear and posts wanted read positions, each conversation
    /// with its own backoff after temporary failures. Woken by inotify when a file lands in an
    /// `outbox/` (`send`, `retry`, `read`), and at least every ``Options/outboxPollInterval``
    /// anyway (backoff deadlines, idle catch-up). When the kernel refuses the watches (its
    /// inotify limits), the watcher polls and the log says so once; a directory that cannot be
    /// watched at all is logged too, and the floor alone wakes the worker.
    func followOutbox(log: @escaping @Sendable (String) -> Void) async {
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let root = store.store.root + "/" + StoreLayout.conversations
        let said = Atomic<Bool>(false)
        let watcher: DirectoryWatcher?
        do {
            watcher = try DirectoryWatcher(root: root, depth: 2) { batch in
                if let polling = batch.polling, !said.exchange(true, ordering: .relaxed) { log("outbox: \(polling)") }
                if batch.rescan || batch.changes.contains(where: { $0.directory.hasSuffix("/" + StoreLayout.outbox) }) {
                    wake.yield()
                }
            }
        } catch {
            watcher = nil
            log(
                "outbox: cannot watch for new messages to send (\(error)); looking every \(options.outboxPollInterval.shortDescription) instead"
            )
        }
        let ticker = Self.ticker(every: options.outboxPollInterval, wake)
        defer {
            ticker.cancel()
            watcher?.stop()
            wake.finish()
        }
        for await _ in wakeups {
            if Task.isCancelled { return }
            await catchUpIfIdle()
            for id in (try? await store.knownConversations()) ?? []
            where liveState.conversations[id]?.outboxDue(at: .now) ?? true {
                let sentWith = token
                do {
                    guard try await startQueuedConversationLive(id, log: log) else { continue }
                    guard !(try await store.pendingOutbox(id)).isEmpty else {
                        try await postRead(id)
                        continue
                    }
                    if !session.capabilities.remembersClientMessageIDs,
                        !liveState.caughtUpBeforeDelivery.contains(id)
                    {
                        try await catchUp(id)
                        _ = try await store.removeAcceptedOutboxFiles(in: id)
                        liveState.caughtUpBeforeDelivery.insert(id)
                        guard !(try await store.pendingOutbox(id)).isEmpty else { continue }
                    }
                    let outcome = try await drainOutbox(id, patient: false)
                    if outcome.sent > 0 { log("\(id): delivered \(outcome.sent)") }
                    if outcome.unplaced > 0 { log("\(id): \(outcome.unplaced) accepted, waiting for their place") }
                    for failure in outcome.failed { log("rejected: \(failure)") }
                    if let problem = outcome.problem {
                        // The attempt may have reached the server with its answer lost, and the
                        // retry may come after the server forgot it: caught up first again.
                        liveState.caughtUpBeforeDelivery.remove(id)
                        let delay = outboxFailed(id, retryAfter: outcome.retryAfter)
                        log(
                            "\(id): \(outcome.stillPending) pending; retrying in \(delay.shortDescription) (\(problem))"
                        )
                    } else {
                        liveState.conversations[id]?.outboxDelivered()
                        metrics?.conversationSynced(id)
                        try await postRead(id)
                    }
                } catch {
                    if Task.isCancelled {
                        // A write the store refused is said even while the worker stops (the
                        // outbox file's removal failing after the message was stored, say): a
                        // failing disk never goes unsaid. A request cut by the stop is not news.
                        if error is StoreError { log("\(id): \(error)") }
                        return
                    }
                    if case SyncError.unauthorized = error, await renewToken(refused: sentWith, log: log) { continue }
                    liveState.caughtUpBeforeDelivery.remove(id)
                    _ = outboxFailed(id, retryAfter: (error as? SyncError)?.retryAfter)
                    noteStopped(id, error)
                    log("\(id): \(error)")
                }
            }
        }
    }

    /// Wakes `wake` every `interval` until cancelled: the floor under an inotify watcher (backoff
    /// deadlines, idle work, a machine out of inotify watches).
    static func ticker(every interval: Duration, _ wake: AsyncStream<Void>.Continuation) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                wake.yield()
            }
        }
    }

    /// Paces conversation `id`'s outbox after a temporary failure; returns the wait.
    private func outboxFailed(_ id: ConversationID, retryAfter: Duration?) -> Duration {
        liveState.conversations[id, default: newConversationState].outboxFailed(retryAfter: retryAfter, at: .now)
    }
}
