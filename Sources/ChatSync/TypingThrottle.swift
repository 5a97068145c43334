import ChatDomain

/// Decides which of the chat screen's typing signals (`typing-me`, an untrusted file) become a
/// `POST …/typing`: a new value, at most ``freshness`` old, at most one POST per ``interval``
/// per conversation, none at all once the server showed it has no such endpoint.
struct TypingThrottle: Sendable {
    /// A signal older than this (milliseconds) is stale: the user stopped typing.
    static let freshness: Int64 = 5_000
    /// The shortest time between two POSTs for one conversation, whatever the file says
    /// (``SyncEngine/Options/typingInterval``).
    var interval: Duration = .seconds(3)

    /// The last `typing-me` value seen per conversation: only a change is a signal.
    private var seen: [ConversationID: Int64] = [:]
    private var posted: [ConversationID: ContinuousClock.Instant] = [:]
    /// Set after a 404 or 405: the server has no typing endpoint, for the rest of the session.
    private(set) var off = false

    /// Whether to POST for a signal of `id` at `signalled` (wall-clock milliseconds), seen at
    /// `nowMilliseconds` on the wall clock and `now` on the monotonic one. Records the POST.
    mutating func shouldPost(
        _ id: ConversationID, signalled: Int64, nowMilliseconds: Int64, at now: ContinuousClock.Instant
    ) -> Bool {
        guard !off, seen[id] != signalled else { return false }
        seen[id] = signalled
        // A time far ahead of the clock is garbage, not a signal that stays fresh for ever.
        guard nowMilliseconds - signalled <= Self.freshness, signalled - nowMilliseconds <= Self.freshness else {
            return false
        }
        if let last = posted[id], now - last < interval { return false }
        posted[id] = now
        return true
    }

    /// The server answered a typing POST with `status`; returns true when that turned typing off.
    mutating func failed(status: Int?) -> Bool {
        guard !off, status == 404 || status == 405 else { return false }
        off = true
        return true
    }
}
