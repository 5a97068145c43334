import ChatDomain

/// When a one-pass sync must be over: no request runs past it and no retry waits past it, so a
/// server that answers slowly (or trickles a byte a second) cannot hold `chatdir sync` silently.
public struct PassDeadline: Sendable, Equatable {
    public var instant: ContinuousClock.Instant
    /// The whole pass's budget, for messages.
    public var budget: Duration

    public init(budget: Duration, from start: ContinuousClock.Instant = .now) {
        instant = start + budget
        self.budget = budget
    }

    public func isOver(at now: ContinuousClock.Instant = .now) -> Bool { now >= instant }

    /// Whether waiting `delay` from now would end past the deadline.
    public func leavesNoTime(for delay: Duration, at now: ContinuousClock.Instant = .now) -> Bool {
        now + delay >= instant
    }
}

extension SyncError {
    /// A request was cut at the pass's deadline: which server, which request, what it waited for.
    static func passBudgetSpent(_ server: ServerAddress, _ request: String, budget: Duration, waitedFor: String)
        -> SyncError
    {
        .temporary(
            "\(server) did not finish answering \(request) within the pass's \(budget.shortDescription) budget (\(waitedFor)); run `chatdir sync` again later",
            retryAfter: nil)
    }

    /// The pass's deadline came before a request could start.
    static func passBudgetSpent(_ server: ServerAddress, before request: String, budget: Duration) -> SyncError {
        .temporary(
            "the pass's \(budget.shortDescription) budget ran out before \(request) to \(server); run `chatdir sync` again later",
            retryAfter: nil)
    }

    /// The pass's deadline came before these conversations' turn: how many, and the first few
    /// by name (a first sync of thousands must not print thousands of IDs on one line).
    static func passBudgetSpent(_ server: ServerAddress, beforeSyncing rest: [ConversationID], budget: Duration)
        -> SyncError
    {
        passBudgetSpent(server, before: "syncing " + namedBriefly(rest), budget: budget)
    }

    /// "c7", "c7 and c8", or "12 conversations (c7, c8, c9 and 9 more)": at most three IDs.
    static func namedBriefly(_ ids: [ConversationID]) -> String {
        let names = ids.map(\.rawValue)
        let shown = 3
        switch names.count {
        case 0...1: return names.first ?? "no conversation"
        case 2...shown: return names.dropLast().joined(separator: ", ") + " and " + (names.last ?? "")
        default:
            return
                "\(names.count) conversations (\(names.prefix(shown).joined(separator: ", ")) and \(names.count - shown) more)"
        }
    }

    /// A retry would wait past the pass's deadline.
    static func noTimeToRetry(_ reason: String, budget: Duration, retryAfter: Duration?) -> SyncError {
        .temporary(
            "\(reason); no time left for another attempt within the pass's \(budget.shortDescription) budget",
            retryAfter: retryAfter)
    }
}
