import ChatDomain

/// What became of one outbox message the server did not refuse.
enum Delivery: Sendable, Equatable {
    /// Accepted and placed: the message as the server stored it, its sequence included.
    case placed(Message)
    /// Accepted, but its place is not known yet (a protocol that answers a send with an ID of
    /// its own): a catch-up brings it with its sequence, and until it is stored the outbox file stays.
    case accepted
}
