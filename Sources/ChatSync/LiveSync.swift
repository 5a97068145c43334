import ChatDomain
import ChatProtocol
import ChatStore

/// The live worker (`chatdir sync --live`): stays connected, saves what arrives, fills gaps,
/// delivers the outbox as it fills, posts positions; reconnects with backoff and catches up
/// after every reconnect. Runs until its task is cancelled, finishing the write in progress.
extension SyncEngine {
    /// Per-conversation state of the live worker.
    struct LiveState {
        var gaps: [ConversationID: GapTracker] = [:]
        /// Live messages received past a hole, waiting for it to fill (by event or catch-up).
        var held: [ConversationID: [Int: Message]] = [:]
        var delivered: [ConversationID: PositionRequestState] = [:]
        /// After a failed delivered post: its backoff, and the wait before the next one.
        var deliveredBackoff: [ConversationID: Backoff] = [:]
        var deliveredRetry: [ConversationID: Task<Void, Never>] = [:]
        /// After a failed gap catch-up: its backoff (the next check waits it out).
        var gapBackoff: [ConversationID: Backoff] = [:]
        /// When the outbox of a conversation may be tried again after a temporary failure.
        var outboxNotBefore: [ConversationID: ContinuousClock.Instant] = [:]
        var outboxBackoff: [ConversationID: Backoff] = [:]
        var gapChecks: Set<ConversationID> = []
        /// When the last discovery for an unknown conversation ran, and whether a deferred one waits.
        var lastDiscovery: ContinuousClock.Instant?
        var discoveryScheduled = false
        /// Requests started in the background (delivered posts, gap checks), cancelled when the
        /// worker stops so nothing writes into the store after it returns.
        var background: [Int: Task<Void, Never>] = [:]
        var nextBackgroundKey = 0
        /// Whether the live socket is up, and when it last brought an event.
        var connected = false
        var lastActivity = ContinuousClock.now
    }

    /// Runs until cancelled (returns nil) or until the server refuses the token (returns that error).
    public func runLive(log: @escaping @Sendable (String) -> Void) async -> SyncError? {
        var live = LiveConnection(server: server, token: token, pingInterval: options.pingInterval)
        live.connector = options.connector
        var pacer = ReconnectPacer(backoff: options.backoff, healthyAfter: options.healthyConnection)
        let outbox = Task { await self.followOutbox(log: log) }
        defer {
            outbox.cancel()
            liveState.background.values.forEach { $0.cancel() }
            liveState.background.removeAll()
            liveState.deliveredRetry.removeAll()
        }
        while !Task.isCancelled {
            var lastError: SyncError?
            for await event in live.events() {
                switch event {
                case .connected:
                    pacer.connected(at: .now)
                    liveState.connected = true
                    liveState.lastActivity = .now
                    log("connected to \(server); catching up")
                    do {
                        try await catchUpEverything()
                        log("caught up")
                    } catch let error as SyncError {
                        if case .unauthorized = error { log(error.description); return error }
                        log("catch-up failed: \(error)")
                    } catch {
                        if Task.isCancelled { return nil }
                        log("catch-up failed: \(error)")
                    }
                case let .event(liveEvent):
                    liveState.lastActivity = .now
                    do {
                        try await apply(liveEvent)
                    } catch {
                        log("could not apply a live event: \(error)")
                    }
                case let .ignored(reason):
                    log("ignored a live frame: \(reason)")
                case let .disconnected(error):
                    lastError = error
                    liveState.connected = false
                    if case .unauthorized = error { log(error.description); return error }
                    if !Task.isCancelled { log("live connection lost: \(error)") }
                }
            }
            if Task.isCancelled { break }
            // Accepted then closed soon after counts as a failure: the delay keeps growing.
            let delay = pacer.disconnected(at: .now, retryAfter: lastError?.retryAfter)
            log("reconnecting in \(delay.shortDescription)")
            do { try await Task.sleep(for: delay) } catch { break }
        }
        return nil
    }

    /// After (re)connecting: every conversation caught up, receipts fetched, positions posted.
    /// Catching up starts at the lower of the store's head run and a hole this worker still
    /// knows of, so a hole left open across a reconnect is filled, not skipped.
    /// A conversation whose catch-up fails (a broken answer, a failed write) does not hold up
    /// the others: the first such error is thrown once every conversation had its turn.
    func catchUpEverything() async throws {
        var firstError: (any Error)?
        for id in try await discover() {
            do {
                try await catchUpLive(id)
            } catch {
                if case SyncError.unauthorized = error { throw error }
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
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
        liveState.lastDiscovery = .now
        _ = try await discover()
        return try await store.info(id) != nil
    }

    /// One discovery at `instant`, then a catch-up of every listed conversation not yet followed.
    private func scheduleDiscovery(at instant: ContinuousClock.Instant) {
        guard !liveState.discoveryScheduled else { return }
        liveState.discoveryScheduled = true
        remember(Task { [weak self] in
            try? await Task.sleep(until: instant)
            await self?.runDeferredDiscovery()
        })
    }

    private func runDeferredDiscovery() async {
        liveState.discoveryScheduled = false
        guard !Task.isCancelled else { return }
        liveState.lastDiscovery = .now
        guard let listed = try? await discover() else { return }
        for id in listed where liveState.gaps[id] == nil {
            try? await catchUpLive(id)
        }
    }

    /// One conversation of ``catchUpEverything()``.
    private func catchUpLive(_ id: ConversationID) async throws {
        _ = try await store.removeAcceptedOutboxFiles(in: id)
        let head = try await store.catchUpPoint(id)
        let start = min(head, liveState.gaps[id]?.caughtUpTo ?? head)
        let through = try await catchUp(id, from: start).through
        let positions = try await store.mergeServerPositions(try await retrying { api in try await api.receipts(id) }, in: id)
        let me = await store.me
        // Never `await` inside a mutation of actor state: finish the awaits, then mutate.
        if liveState.gaps[id] == nil { liveState.gaps[id] = GapTracker(caughtUpTo: through, grace: options.gapGrace) }
        liveState.gaps[id]?.caughtUp(through: through, at: .now)
        let ready = takeReady(id)
        if !ready.isEmpty { try await store.saveFromServer(ready, in: id, what: "live messages") }
        liveState.delivered[id, default: PositionRequestState()].observed(confirmed: positions[me].deliveredUpTo)
        scheduleDelivered(id)
        // A fresh connection is a fresh start for the outbox: its backoff begins again at the
        // first step (the reconnect itself is paced), instead of keeping the delay a string of
        // failures on the last connection built up.
        liveState.outboxNotBefore[id] = nil
        liveState.outboxBackoff[id] = nil
    }

    /// Saves a live event. A message past a hole is saved at once; the hole gets a short
    /// grace period, then a catch-up. A message for an unknown conversation first discovers it.
    func apply(_ event: LiveEvent) async throws {
        switch event {
        case let .message(id, message):
            if liveState.gaps[id] == nil {
                guard try await isListed(id) else { return }
                let point = try await store.catchUpPoint(id)
                if liveState.gaps[id] == nil { liveState.gaps[id] = GapTracker(caughtUpTo: point, grace: options.gapGrace) }
            }
            // Held in memory until everything before it is here: the store never gets a hole at
            // its head, so "the newest stored sequence" is always a safe place to catch up from.
            let before = liveState.gaps[id]?.caughtUpTo ?? 0
            liveState.held[id, default: [:]][message.sequence] = message
            // Past the tracker's cap the message is dropped (bounded memory); a catch-up brings it.
            for dropped in liveState.gaps[id]?.stored([message.sequence], at: .now) ?? [] { liveState.held[id]?.removeValue(forKey: dropped) }
            let ready = takeReady(id, arrived: message.sequence, after: before)
            if !ready.isEmpty { try await store.saveFromServer(ready, in: id, what: "live messages") }
            if liveState.gaps[id]?.missing != nil { scheduleGapCheck(id) }
            scheduleDelivered(id)
        case let .receipt(id, member, position):
            guard try await store.info(id) != nil else { return }
            try await store.mergeServerPositions(Positions([member: position]), in: id)
            // A position past what has arrived proves messages exist that no event brought.
            liveState.gaps[id]?.exists(through: max(position.deliveredUpTo, position.readUpTo), at: .now)
            if liveState.gaps[id]?.missing != nil { scheduleGapCheck(id) }
            if member == (await store.me) { liveState.delivered[id, default: PositionRequestState()].observed(confirmed: position.deliveredUpTo) }
        }
    }

    /// A dropped last event leaves a hole nothing reveals; after ``Options/idleCatchUp`` without
    /// events, catch up anyway (one request per conversation).
    /// A failure is logged (a full disk must not go unsaid: the lost event's message is what this
    /// brings) and ends this round; the next idle period or reconnect tries again.
    private func catchUpIfIdle(log: @Sendable (String) -> Void) async {
        guard liveState.connected, ContinuousClock.now - liveState.lastActivity >= options.idleCatchUp else { return }
        liveState.lastActivity = .now
        for id in liveState.gaps.keys {
            guard let from = liveState.gaps[id]?.caughtUpTo else { continue }
            do {
                let through = try await catchUp(id, from: from).through
                liveState.gaps[id]?.caughtUp(through: through, at: .now)
                let ready = takeReady(id)
                if !ready.isEmpty { try await store.saveFromServer(ready, in: id, what: "live messages") }
                scheduleDelivered(id)
            } catch {
                if !Task.isCancelled { log("\(id): idle catch-up failed: \(error)") }
                return
            }
        }
    }

    /// Keeps a background task until it ends, so the worker can cancel it when it stops (a task
    /// dropped while still running could write into the store after the worker returned).
    private func remember(_ task: Task<Void, Never>) {
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

    /// Removes and returns the held messages that nothing is missing before, in order.
    private func takeReady(_ id: ConversationID) -> [Message] {
        guard let through = liveState.gaps[id]?.caughtUpTo, let held = liveState.held[id] else { return [] }
        let ready = held.values.filter { $0.sequence <= through }.sorted { $0.sequence < $1.sequence }
        for message in ready { liveState.held[id]?.removeValue(forKey: message.sequence) }
        return ready
    }

    /// ``takeReady(_:)`` for one arrival: only the sequences it made contiguous are looked up,
    /// so a live event costs the run it closed, not the size of the held buffer (which a server
    /// that never fills its hole could otherwise make every event scan).
    private func takeReady(_ id: ConversationID, arrived sequence: Int, after before: Int) -> [Message] {
        guard let through = liveState.gaps[id]?.caughtUpTo else { return [] }
        guard let run = sequence <= before ? sequence...sequence : through > before ? (before + 1)...through : nil else { return [] }
        var ready: [Message] = []
        for sequence in run {
            if let message = liveState.held[id]?.removeValue(forKey: sequence) { ready.append(message) }
        }
        return ready
    }

    private func scheduleGapCheck(_ id: ConversationID) {
        guard liveState.gapChecks.insert(id).inserted, let deadline = liveState.gaps[id]?.deadline else { return }
        let task = Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            if !Task.isCancelled { await self.checkGap(id) }
        }
        remember(task)
    }

    private func checkGap(_ id: ConversationID) async {
        liveState.gapChecks.remove(id)
        guard let gaps = liveState.gaps[id], gaps.catchUpDue(at: .now) else {
            if liveState.gaps[id]?.missing != nil { scheduleGapCheck(id) }
            return
        }
        do {
            let through = try await catchUp(id, from: gaps.caughtUpTo).through
            liveState.gaps[id]?.caughtUp(through: through, at: .now)
            let ready = takeReady(id)
            if !ready.isEmpty { try await store.saveFromServer(ready, in: id, what: "live messages") }
            scheduleDelivered(id)
            // A catch-up that left the hole open (the server's pages stop short of what its
            // events or receipts promised) is paced like a failure.
            if liveState.gaps[id]?.missing == nil { liveState.gapBackoff[id] = nil } else { retryGapCheck(id, after: nil) }
        } catch {
            if !Task.isCancelled { retryGapCheck(id, after: error as? SyncError) }
        }
    }

    /// Checks the gap again after a backoff; until then live events past the hole schedule
    /// nothing (the id stays in `gapChecks`), so a failing server is not asked once per event.
    private func retryGapCheck(_ id: ConversationID, after error: SyncError?) {
        guard liveState.gapChecks.insert(id).inserted else { return }
        var backoff = liveState.gapBackoff[id] ?? options.backoff
        let delay = backoff.failure(retryAfter: error?.retryAfter)
        liveState.gapBackoff[id] = backoff
        let task = Task {
            try? await Task.sleep(for: delay)
            if !Task.isCancelled { await self.checkGap(id) }
        }
        remember(task)
    }

    /// Posts my delivered position when the stored run grew: one request at a time, latest wins.
    /// After a failure the next post waits out the backoff (Retry-After honoured).
    private func scheduleDelivered(_ id: ConversationID) {
        guard let high = liveState.gaps[id]?.caughtUpTo else { return }
        liveState.delivered[id, default: PositionRequestState()].want(high)
        guard liveState.deliveredRetry[id] == nil, let upTo = liveState.delivered[id]?.nextRequest() else { return }
        let task = Task {
            let result: Result<Int, SyncError>
            do throws(SyncError) { result = .success(try await self.api.delivered(id, upTo: upTo)) } catch { result = .failure(error) }
            if !Task.isCancelled { await self.deliveredFinished(id, result) }
        }
        remember(task)
    }

    private func deliveredFinished(_ id: ConversationID, _ result: Result<Int, SyncError>) async {
        switch result {
        case let .success(confirmed):
            liveState.delivered[id]?.finished(confirmed: confirmed)
            liveState.deliveredBackoff[id] = nil
            let me = await store.me
            _ = try? await store.mergeServerPositions(Positions([me: MemberPosition(deliveredUpTo: confirmed, readUpTo: 0)]), in: id)
            scheduleDelivered(id)
        case let .failure(error):
            liveState.delivered[id]?.finished(confirmed: nil)
            var backoff = liveState.deliveredBackoff[id] ?? options.backoff
            let delay = backoff.failure(retryAfter: error.retryAfter)
            liveState.deliveredBackoff[id] = backoff
            let retry = Task {
                try? await Task.sleep(for: delay)
                if !Task.isCancelled { self.deliveredRetryDue(id) }
            }
            liveState.deliveredRetry[id] = retry
            remember(retry)
        }
    }

    private func deliveredRetryDue(_ id: ConversationID) {
        liveState.deliveredRetry[id] = nil
        scheduleDelivered(id)
    }

    /// Delivers outbox files as they appear and posts wanted read positions, each conversation
    /// with its own backoff after temporary failures. Woken by inotify when a file lands in an
    /// `outbox/` (`send`, `retry`, `read`), and at least every ``Options/outboxPollInterval``
    /// anyway (backoff deadlines, idle catch-up, and a machine out of inotify watches).
    func followOutbox(log: @escaping @Sendable (String) -> Void) async {
        let (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let watcher = try? DirectoryWatcher(root: store.store.root + "/" + StoreLayout.conversations, depth: 2) { batch in
            if batch.rescan || batch.changes.contains(where: { $0.directory.hasSuffix("/" + StoreLayout.outbox) }) { wake.yield() }
        }
        let ticker = Task { [interval = options.outboxPollInterval] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                wake.yield()
            }
        }
        defer {
            ticker.cancel()
            watcher?.stop()
            wake.finish()
        }
        for await _ in wakeups {
            if Task.isCancelled { return }
            await catchUpIfIdle(log: log)
            for id in (try? await store.knownConversations()) ?? [] where liveState.outboxNotBefore[id].map({ $0 <= .now }) ?? true {
                do {
                    guard !(try await store.pendingOutbox(id)).isEmpty else {
                        try await postRead(id)
                        continue
                    }
                    let outcome = try await drainOutbox(id, patient: false)
                    if outcome.sent > 0 { log("\(id): delivered \(outcome.sent)") }
                    for failure in outcome.failed { log("rejected: \(failure)") }
                    if let problem = outcome.problem {
                        var backoff = liveState.outboxBackoff[id] ?? options.backoff
                        let delay = backoff.failure(retryAfter: outcome.retryAfter)
                        liveState.outboxBackoff[id] = backoff
                        liveState.outboxNotBefore[id] = .now + delay
                        log("\(id): \(outcome.stillPending) pending; retrying in \(delay.shortDescription) (\(problem))")
                    } else {
                        liveState.outboxBackoff[id] = nil
                        try await postRead(id)
                    }
                } catch {
                    if Task.isCancelled { return }
                    var backoff = liveState.outboxBackoff[id] ?? options.backoff
                    liveState.outboxNotBefore[id] = .now + backoff.failure(retryAfter: (error as? SyncError)?.retryAfter)
                    liveState.outboxBackoff[id] = backoff
                    log("\(id): \(error)")
                }
            }
        }
    }
}
