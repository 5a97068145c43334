import ChatDomain
import ChatProtocol

/// What one live connection yields, in order: ``connected`` once it is up, events and ignored
/// frames while it lasts, ``disconnected(_:)`` last (the stream ends after it). The same for
/// every ``ServerSession``: reconnecting and catching up are the engine's.
public enum LiveUpdate: Sendable, Equatable {
    /// The connection is up: events flow from now on.
    case connected
    case event(LiveEvent)
    /// Conversation `id` has news the event does not carry (a Matrix room's timeline or read
    /// receipts changed): the engine catches it up and merges its positions.
    case changed(ConversationID)
    /// Something that is not a valid event (hostile or newer server); it was ignored.
    case ignored(String)
    /// The connection ended; the stream ends after this.
    case disconnected(SyncError)
}
