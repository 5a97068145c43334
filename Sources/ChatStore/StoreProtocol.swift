import ChatDomain

/// Which protocol a store syncs with, and so which records it may hold: wire contract v1
/// (`chatdir serve`) or the Matrix client-server API. A record carries Matrix fields
/// (`eventId`, `kind`, `redacted`, `replaces`) in a Matrix store and never in a wire v1 one.
public enum StoreProtocol: Sendable, Hashable {
    case wire, matrix

    /// The protocol of the store `manifest` describes: its user ID's grammar says it, since a
    /// Matrix store's user is a Matrix user ID and a wire v1 store's a name.
    public init(of manifest: Manifest) {
        self = manifest.userID.isMatrix ? .matrix : .wire
    }
}
