import ChatDomain

/// Which protocol a store syncs over, fixed when it is created: it decides the grammar of its
/// user IDs and which keys its records hold (a record carries `eventId`, `kind`, `redacted`
/// and `replaces` in a Matrix store and never in a wire v1 one).
public enum StoreProtocol: Sendable, Hashable {
    /// chatdir's own wire contract (docs/PROTOCOL.md), as `chatdir serve` speaks it; user IDs
    /// are names.
    case wire
    /// The Matrix client-server API; user IDs are Matrix user IDs, each conversation is a room.
    case matrix

    /// The protocol a user ID belongs to: a Matrix user ID is only ever a Matrix store's, so a
    /// store's user says which protocol it syncs over.
    public init(of user: UserID) {
        self = user.isMatrix ? .matrix : .wire
    }
}
