/// Whether an outbox message is still waiting or was refused by the server.
public enum SendState: String, Hashable, Sendable, CaseIterable {
    /// Waiting for the sync worker; retried automatically after temporary failures.
    case pending
    /// Rejected by the server; waits for the user to retry it by hand.
    case failed
}
