import ChatDomain

/// The caps on what a Matrix answer may hold, so a hostile or broken homeserver cannot make the
/// client store or hold more than it can use. Each is above what Synapse sends (figures from
/// Synapse 1.163.2 and the client-server specification).
public enum MatrixLimits {
    /// Events in one timeline, `/messages` chunk or context side: Synapse caps a page at 1,000.
    public static let eventsPerPage = 1_000
    /// An event's `prev_events`: the specification's room versions allow at most 20.
    public static let previousEvents = 20
    /// State events of one room in one answer (a large room's full state on a first sync).
    public static let stateEventsPerRoom = 50_000
    /// Rooms in one section (join, invite, leave) of a `/sync` answer.
    public static let roomsPerSync = 10_000
    /// A message's `body`, in UTF-8 bytes: a whole event may be at most 65,536 bytes.
    public static let bodyBytes = 65_536
    /// An identifier (user, room, event, alias) in bytes, as the specification caps them.
    public static let identifierBytes = MatrixIdentifierGrammar.maxBytes
    /// An event type, msgtype, errcode, receipt type or account data type, in bytes.
    public static let typeBytes = 255
    /// A token (access, refresh, `next_batch`, pagination), in bytes: Synapse's are under 100,
    /// OAuth access tokens can be a few kilobytes.
    public static let tokenBytes = 8_192
    /// Any other string (a room name, a display name, an error's words, a URL), in bytes.
    public static let textBytes = 65_536
    /// Entries of the smaller lists (spec versions, typing users, users in one receipt).
    public static let listEntries = 10_000
    /// JSON nesting in one answer. Event content is any member's to shape, and Synapse accepts
    /// content nested up to 126 levels (measured: an array 125 deep under a content key is
    /// accepted, 127 is `M_BAD_JSON`); a `/sync` answer adds its own seven levels above it. The
    /// project's usual cap of 64 would let one member's event refuse every member's `/sync`.
    public static let jsonDepth = 256
    /// The largest integer JSON carries exactly (2^53 − 1): timestamps and durations above it are refused.
    public static let maxInteger = 9_007_199_254_740_991
}
