import ChatDomain
import ChatStore
import ChatSystem
import Dispatch

/// One conversation's history as the server keeps it: every message in memory, indexed by
/// sequence and client message ID, made durable in the store format before anyone hears of it.
///
/// Sequences are assigned under a lock, so they start at 1 and have no holes however many POSTs
/// race. Durability uses group commit: POSTs that arrive while a commit is in flight wait in
/// memory and are written together by the next one (one rewrite of the touched segment files,
/// one fsync each, one fsync of the directory), then each gets its answer. The thread whose POST
/// starts a batch writes it; when it is done, the oldest waiter of the next batch takes over,
/// so no client's reply waits behind other clients' batches.
///
/// Nothing that is not durable is visible: GETs, live events and position clamping see only
/// the durable prefix, so a client never learns a sequence that a crash could give to another
/// message.
final class ConversationLog: Sendable {
    let id: ConversationID
    let info: ConversationInfo
    let members: Set<UserID>
    /// The conversation's files in the data directory: segments, positions.json (ChatStore's door).
    let log: SegmentLog
    /// Where positions.json writes go: made durable with other conversations' (one per data directory).
    private let positionsCommitter: PositionsCommitter

    private let state: Lock<State>
    /// The durable positions; held while positions.json is rewritten, so writes keep their order.
    private let positions: Lock<Positions>

    private struct State {
        /// Every message, index `sequence - 1`; the first `durableCount` are on disk.
        var messages: [Message]
        var durableCount: Int
        var sequenceByClientID: [ClientMessageID: Int]
        /// POSTs waiting for their message to become durable.
        var waiting: [(sequence: Int, ticket: CommitTicket<Message>)] = []
        /// Whether some thread is writing a batch right now (or was asked to).
        var committing = false
        /// How many messages the last batch made durable (see ``gatherDelayMicroseconds``).
        var lastBatchSize = 0
    }

    /// What an append ended in.
    enum AppendResult: Sendable {
        /// Accepted now: 201.
        case created(Message)
        /// This client message ID was accepted before: 200 with the same message.
        case existing(Message)
    }

    /// Loads a conversation from its directory in the data directory.
    /// - Parameter positionsCommitter: the data directory's, shared by its conversations.
    /// - Throws: ``ServerError`` naming the damaged file, or a hole in the sequences.
    init(id: ConversationID, info: ConversationInfo, conversation: Conversation, positionsCommitter: PositionsCommitter)
        throws(ServerError)
    {
        self.id = id
        self.info = info
        members = Set(info.members)
        log = SegmentLog(conversation)
        self.positionsCommitter = positionsCommitter
        var messages: [Message] = []
        do {
            for range in try conversation.segmentRanges() {
                messages += try conversation.readSegment(range)
            }
        } catch {
            throw .storage(error)
        }
        var byID: [ClientMessageID: Int] = [:]
        for (index, message) in messages.enumerated() {
            guard message.sequence == index + 1 else {
                throw .badDataDirectory(
                    path: conversation.directory,
                    reason:
                        "messages: sequence \(index + 1) is missing (found \(message.sequence) next); the server's history has no holes, restore the missing records from a backup"
                )
            }
            guard byID.updateValue(message.sequence, forKey: message.clientMessageID) == nil else {
                throw .badDataDirectory(
                    path: conversation.directory,
                    reason:
                        "messages: client message ID \(message.clientMessageID) appears twice; keep one of the records")
            }
        }
        state = Lock(State(messages: messages, durableCount: messages.count, sequenceByClientID: byID))
        do {
            positions = Lock(try conversation.positions() ?? Positions())
        } catch {
            throw .storage(error)
        }
    }

    /// The highest durable sequence (0 when empty).
    var lastSequence: Int {
        state.withLock { $0.durableCount }
    }

    // MARK: Appending

    /// Accepts a message, or returns the one already accepted with this client message ID, once
    /// it is durable. Blocks the calling thread through the commit (a connection thread, never
    /// the cooperative pool).
    /// - Parameter now: the server's timestamp for `sentAt`.
    /// - Parameter published: called with messages that just became durable, in sequence order,
    ///   once per batch (for the live fan-out).
    /// - Throws: ``StoreError`` when the batch could not be written; nothing of it was accepted.
    func append(
        clientMessageID: ClientMessageID, sender: UserID, text: String, now: () -> String,
        published: ([Message]) -> Void
    ) throws(StoreError) -> AppendResult {
        let ticket = CommitTicket<Message>()
        enum Step {
            case done(AppendResult)
            case wait(created: Bool)
            case lead
        }
        let step = state.withLock { state -> Step in
            if let sequence = state.sequenceByClientID[clientMessageID] {
                let message = state.messages[sequence - 1]
                if sequence <= state.durableCount { return .done(.existing(message)) }
                state.waiting.append((sequence, ticket))
                return .wait(created: false)
            }
            let message = Message(
                sequence: state.messages.count + 1, clientMessageID: clientMessageID, senderID: sender, text: text,
                sentAt: now())
            state.messages.append(message)
            state.sequenceByClientID[clientMessageID] = message.sequence
            state.waiting.append((message.sequence, ticket))
            if state.committing { return .wait(created: true) }
            state.committing = true
            return .lead
        }
        var created = true
        switch step {
        case .done(let result): return result
        case .wait(let isNew): created = isNew
        case .lead: commitBatch(published: published)
        }
        while true {
            switch ticket.wait() {
            case .lead:
                commitBatch(published: published)
            case .durable(let message):
                return created ? .created(message) : .existing(message)
            case .failed(let error):
                throw error
            }
        }
    }

    /// How long a batch that starts smaller than the last one waits for the rest of its clients.
    ///
    /// When a batch is answered, its clients send their next POSTs within a fraction of a
    /// millisecond, but the first to arrive would start the next batch alone and make the others
    /// wait a whole fsync for theirs. A short gather delay (PostgreSQL's `commit_delay` idea)
    /// lets them join; a lone client never waits, since its batches are never smaller than the last.
    static let gatherDelayMicroseconds = 200

    /// Writes every message not yet durable, answers their waiters, and hands the next batch
    /// to the oldest waiter left (or ends the commit when there is none).
    private func commitBatch(published: ([Message]) -> Void) {
        let pending = state.withLock { (count: $0.messages.count - $0.durableCount, last: $0.lastBatchSize) }
        if pending.count < pending.last {
            SystemThread.sleep(microseconds: Self.gatherDelayMicroseconds)
        }
        let batch = state.withLock { state in log.batch(of: state.messages, durableCount: state.durableCount) }
        var failure: StoreError?
        do {
            try log.commit(batch)
        } catch {
            failure = error
        }
        var resolved: [(CommitTicket<Message>, CommitTicket<Message>.Outcome)] = []
        var madeDurable: [Message] = []
        state.withLock { state in
            if let failure {
                // Nothing past the durable prefix was acknowledged: forget all of it, so the
                // sequences are given again and stay without holes.
                for message in state.messages[state.durableCount...] {
                    state.sequenceByClientID[message.clientMessageID] = nil
                }
                state.messages.removeSubrange(state.durableCount...)
                resolved = state.waiting.map { ($0.ticket, .failed(failure)) }
                state.waiting = []
                state.committing = false
                return
            }
            // Messages appended while this batch was written are not in it: they stay pending.
            let newDurable = batch.through
            madeDurable = Array(state.messages[state.durableCount..<newDurable])
            state.lastBatchSize = madeDurable.count
            state.durableCount = newDurable
            var remaining: [(sequence: Int, ticket: CommitTicket<Message>)] = []
            for entry in state.waiting {
                if entry.sequence <= newDurable {
                    resolved.append((entry.ticket, .durable(state.messages[entry.sequence - 1])))
                } else {
                    remaining.append(entry)
                }
            }
            state.waiting = remaining
            if let next = remaining.first {
                resolved.append((next.ticket, .lead))
            } else {
                state.committing = false
            }
        }
        for (ticket, outcome) in resolved {
            ticket.resolve(outcome)
        }
        if !madeDurable.isEmpty { published(madeDurable) }
    }

    // MARK: Reading

    /// The durable messages with sequence in `after+1...` (the first `limit` of them), and whether more follow.
    func messages(after: Int, limit: Int) -> (items: [Message], hasMore: Bool) {
        state.withLock { state in
            let start = min(max(after, 0), state.durableCount)
            let end = min(start + limit, state.durableCount)
            return (Array(state.messages[start..<end]), end < state.durableCount)
        }
    }

    /// The `limit` durable messages closest below `before` (all when nil: the newest), and whether older exist.
    func messages(before: Int?, limit: Int) -> (items: [Message], hasMore: Bool) {
        state.withLock { state in
            let end = min(max((before ?? Int.max) - 1, 0), state.durableCount)
            let start = max(0, end - limit)
            return (Array(state.messages[start..<end]), start > 0)
        }
    }

    // MARK: Positions

    /// Every member's durable position (members missing from positions.json at 0).
    func memberPositions() -> [(UserID, MemberPosition)] {
        let current = positions.withLock { $0 }
        return info.members.sorted().map { ($0, current[$0]) }
    }

    /// Moves `member`'s position forward to `asked` (clamped to the last durable sequence), writes
    /// positions.json durably if it moved (with other conversations' writes of the moment, see
    /// ``PositionsCommitter``), and returns the position with whether it moved.
    /// Reading implies delivery: a read position raises the delivered one with it.
    func advance(_ member: UserID, delivered: Int?, read: Int?) throws(StoreError) -> (
        position: MemberPosition, moved: Bool
    ) {
        let last = lastSequence
        let asked = MemberPosition(deliveredUpTo: min(delivered ?? 0, last), readUpTo: min(read ?? 0, last))
        return try positions.withLock {
            (stored: inout Positions) throws(StoreError) -> (position: MemberPosition, moved: Bool) in
            var updated = stored
            let moved = updated.merge(asked, for: member)
            if moved {
                try positionsCommitter.write(PositionsFile.encode(updated), in: log.conversation.directory)
                stored = updated
            }
            return (stored[member], moved)
        }
    }
}

/// One POST's wait for its batch: resolved once with the outcome (or asked to lead the next batch).
final class CommitTicket<Value: Sendable>: Sendable {
    enum Outcome: Sendable {
        case durable(Value)
        case failed(StoreError)
        /// Write the next batch, then wait again.
        case lead
    }

    private let semaphore = DispatchSemaphore(value: 0)
    private let outcomes = Lock<[Outcome]>([])

    func resolve(_ outcome: Outcome) {
        outcomes.withLock { $0.append(outcome) }
        semaphore.signal()
    }

    func wait() -> Outcome {
        semaphore.wait()
        return outcomes.withLock { $0.removeFirst() }
    }
}
