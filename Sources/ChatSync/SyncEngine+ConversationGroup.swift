import ChatDomain
import ChatProtocol
import ChatStore

/// A one-pass sync of many conversations: ``SyncEngine/Options/conversationsInFlight`` at once
/// on keep-alive connections, their writes made durable a group at a time (``GroupCommit``).
///
/// Each conversation goes through the steps of ``SyncEngine/syncConversation(_:head:report:)``
/// in the same order, and the store ends with the same bytes; only the durability is shared:
///
/// 1. for each, in flight: outbox files already stored removed, its catch-up page fetched (none
///    when the list's `lastSequence` is what the store holds), its receipts;
/// 2. one commit: details, pages (checked as the one-at-a-time catch-up checks them);
/// 3. in flight: delivered positions posted where the server is behind, the messages durable;
/// 4. one commit: the catch-up markers, now that the pages are durable, and `positions.json`:
///    the receipts and the delivered positions the server confirmed, merged into one write;
/// 5. in flight, for those with anything in `outbox/`: the outbox drained, the read position posted.
///
/// A conversation whose catch-up needs more than one page, after the group, goes the
/// one-at-a-time way (from the page fetched already). One conversation's failure leaves the others going; a refused token
/// or TLS ends the pass after the step it happened in.
extension SyncEngine {
    /// One conversation's way through a group.
    struct GroupedConversation: Sendable {
        var conversation: ServerConversation
        var page: (items: [Message], after: Int)?
        /// Where the catch-up ends once the page is stored; nil when it did not get that far.
        var through: Int?
        var receipts: Positions?
        /// The catch-up needs more pages: the conversation goes the one-at-a-time way.
        var needsMorePages: Bool { firstOfMany != nil }
        /// The first page of a catch-up of more pages, handed to the one-at-a-time way.
        var firstOfMany: FetchedPage?
        var error: (any Error)?
        var inserted = 0
        /// The stored positions after the receipts were merged.
        var positions: Positions?
        /// The newest sequence stored after the page, as the save found it.
        var newest: Int?
        var delivered: Int?
        var drained: DrainOutcome?

        var id: ConversationID { conversation.id }
        var info: ConversationInfo { conversation.info }
    }

    /// Syncs `conversations` a group at a time, into `report` as the one-at-a-time loop would.
    func syncGrouped(_ conversations: [ServerConversation], deadline: PassDeadline, report: inout Report) async throws {
        var start = 0
        while start < conversations.count {
            if deadline.isOver() {
                let rest = Array(conversations[start...])
                report.record(SyncError.passBudgetSpent(server, beforeSyncing: rest.map(\.id), budget: deadline.budget))
                await saveDetails(of: rest)
                for conversation in rest {
                    report.stillPending += (try? await store.pendingOutbox(conversation.id).count) ?? 0
                }
                return
            }
            let group = Array(
                conversations[start..<min(start + max(options.conversationsPerCommit, 1), conversations.count)])
            let items: [GroupedConversation]
            do {
                items = try await syncGroup(group)
            } catch {
                // A refused token or TLS ends the pass; the conversations it did not reach still
                // get their details (this group's may be written already: the same bytes are skipped).
                await saveDetails(of: conversations[start...])
                throw error
            }
            start += group.count
            for item in items {
                report.newMessages += item.inserted
                if item.needsMorePages, item.error == nil {
                    do {
                        try await syncConversation(
                            item.id, head: item.conversation.head, firstPage: item.firstOfMany, report: &report)
                    } catch {
                        if Self.endsThePass(error) {
                            await saveDetails(of: conversations[start...])
                            throw error
                        }
                        report.record(error, in: item.id)
                        noteStopped(item.id, error)
                        noteStopped(item.id, error)
                        report.stillPending += (try? await store.pendingOutbox(item.id).count) ?? 0
                    }
                    continue
                }
                if let outcome = item.drained { report.add(outcome, in: item.id) }
                if let error = item.error {
                    report.record(error, in: item.id)
                    noteStopped(item.id, error)
                    report.stillPending += (try? await store.pendingOutbox(item.id).count) ?? 0
                }
            }
        }
    }

    /// The details of conversations a pass ends before, as the one-at-a-time pass writes every
    /// conversation's up front; a failure to write them is the next pass's to meet.
    private func saveDetails(of conversations: some Collection<ServerConversation>) async {
        _ = await store.saveGrouped(
            conversations.map { SyncStore.GroupedPage(id: $0.id, info: GroupedConversation(conversation: $0).info) })
    }

    /// Steps 1–5 for one group; each conversation's outcome, in the group's order.
    private func syncGroup(_ conversations: [ServerConversation]) async throws -> [GroupedConversation] {
        let (api, store, options) = (self.api, self.store, self.options)
        let width = max(options.conversationsInFlight, 1)
        var items = await Self.inPool(conversations, width: width) { conversation in
            await Self.fetchGrouped(conversation, api: api, store: store, options: options)
        }
        try Self.endPassIfRefused(items)

        let saved = await store.saveGrouped(
            items.map { item in
                SyncStore.GroupedPage(
                    id: item.id, info: item.info, page: item.needsMorePages ? nil : item.page, receipts: item.receipts)
            })
        for (index, result) in saved.enumerated() {
            switch result {
            case .success(let page?):
                items[index].inserted = page.inserted.count
                items[index].positions = page.positions
                items[index].newest = page.newest
                clearTyping(of: page.inserted, in: items[index].id)
            case .success(nil):
                items[index].through = nil
            case .failure(let error):
                items[index].through = nil
                items[index].positions = nil
                if items[index].error == nil { items[index].error = error }
            }
        }

        // My delivered positions, posted where the server is behind now that the pages are
        // durable; then the markers and positions.json (receipts and what the server confirmed)
        // in one commit, so each conversation's positions are written once in the pass.
        let me = await store.me
        let behind = items.indices.filter {
            items[$0].error == nil && items[$0].positions != nil && items[$0].through != nil
        }
        let posted = await Self.inPool(
            behind.map { (items[$0].id, items[$0].positions ?? Positions(), items[$0].through) }, width: width
        ) { id, known, through in
            do {
                let high = try await store.catchUpPoint(id, assumingMarker: through)
                guard api.capabilities.deliveredPositions, high > known[me].deliveredUpTo else {
                    return Result<Int?, any Error>.success(nil)
                }
                return .success(
                    try await Self.retrying(api, options: options) { api in
                        try await api.postDelivered(id, upTo: high)
                    })
            } catch {
                return .failure(error)
            }
        }
        for (index, result) in zip(behind, posted) {
            switch result {
            case .success(let confirmed): items[index].delivered = confirmed
            case .failure(let error): items[index].error = error
            }
        }
        let marked = items.indices.filter { items[$0].through != nil && !items[$0].needsMorePages }
        let markers = marked.map {
            SyncStore.GroupedMarker(
                id: items[$0].id, through: items[$0].through,
                receipts: items[$0].positions == nil ? nil : items[$0].receipts, delivered: items[$0].delivered,
                newest: items[$0].newest)
        }
        for (index, result) in zip(marked, await store.recordGrouped(markers)) {
            switch result {
            case .success: metrics?.caughtUp(items[index].id)
            case .failure(let error):
                items[index].positions = nil
                if items[index].error == nil { items[index].error = error }
            }
        }
        try Self.endPassIfRefused(items)

        let outboxes = await store.withOutbox(items.filter { $0.error == nil && $0.positions != nil }.map(\.id))
        let busy = items.indices.filter { outboxes.contains(items[$0].id) }
        let drained = await Self.inPool(busy.map { items[$0].id }, width: width) { id in
            await self.drainAndPostRead(id)
        }
        for (index, (outcome, error)) in zip(busy, drained) {
            items[index].drained = outcome
            items[index].error = error
        }
        try Self.endPassIfRefused(items)
        return items
    }

    /// Step 5 for one conversation: what the drain did, and the error that stopped it or the read post.
    private func drainAndPostRead(_ id: ConversationID) async -> (DrainOutcome?, (any Error)?) {
        var outcome: DrainOutcome?
        do {
            outcome = try await drainOutbox(id, patient: true)
            try await postRead(id)
            return (outcome, nil)
        } catch {
            return (outcome, error)
        }
    }

    /// Step 1 for one conversation. What was fetched before a failure is kept (a page whose
    /// receipts failed is still saved, as the one-at-a-time catch-up saves it before asking).
    private nonisolated static func fetchGrouped(
        _ conversation: ServerConversation, api: any ServerSession, store: SyncStore, options: Options
    ) async -> GroupedConversation {
        var item = GroupedConversation(conversation: conversation)
        let id = conversation.id
        do {
            let (after, overlap) = try await store.catchUpStart(id)
            let request = overlap == nil ? after : after - 1
            if conversation.head == after {
                // The list says the newest is the one stored: nothing to fetch.
                item.page = ([], request)
                item.through = after
            } else {
                let page = try await retrying(api, options: options) { api in
                    try await api.messages(id, .after(request), limit: options.pageSize)
                }
                let through = max(
                    after, try check(page, overlapping: overlap, after: after, request: request)?.sequence ?? after)
                if page.hasMore, conversation.head.map({ through < $0 }) ?? true {
                    item.firstOfMany = FetchedPage(page: page, after: request)
                    return item
                }
                item.page = (page.items, request)
                item.through = through
            }
            item.receipts = try await serverPositions(api, id, options: options)
        } catch {
            item.error = error
        }
        return item
    }

    /// A refused token or TLS ends the whole pass, as in the one-at-a-time loop.
    private nonisolated static func endPassIfRefused(_ items: [GroupedConversation]) throws {
        for case let error? in items.map(\.error) where endsThePass(error) { throw error }
    }

    nonisolated static func endsThePass(_ error: any Error) -> Bool {
        switch error {
        case SyncError.unauthorized, SyncError.untrusted: true
        default: false
        }
    }

    /// Runs `body` on every item, at most `width` at once; the outcomes in the items' order.
    nonisolated static func inPool<Item: Sendable, Outcome: Sendable>(
        _ items: [Item], width: Int, _ body: @escaping @Sendable (Item) async -> Outcome
    ) async -> [Outcome] {
        await inPool(items, width: width, stoppingAfter: { _ in false }, body).compactMap { $0 }
    }

    /// ``inPool(_:width:_:)`` that begins no more items once an outcome `stops`: those left get nil.
    nonisolated static func inPool<Item: Sendable, Outcome: Sendable>(
        _ items: [Item], width: Int, stoppingAfter stops: @escaping @Sendable (Outcome) -> Bool,
        _ body: @escaping @Sendable (Item) async -> Outcome
    ) async -> [Outcome?] {
        await withTaskGroup(of: (Int, Outcome).self) { group in
            var outcomes = [Outcome?](repeating: nil, count: items.count)
            var next = 0
            var stopped = false
            func startNext() {
                guard !stopped, next < items.count else { return }
                let (index, item) = (next, items[next])
                group.addTask { (index, await body(item)) }
                next += 1
            }
            for _ in 0..<min(width, items.count) { startNext() }
            while let (index, outcome) = await group.next() {
                outcomes[index] = outcome
                if stops(outcome) { stopped = true }
                startNext()
            }
            return outcomes
        }
    }
}
