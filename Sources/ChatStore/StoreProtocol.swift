import ChatDomain

/// Which protocol a store syncs over, fixed when it is created: it decides the grammar of its
/// user IDs and which keys its files hold. `chatdir.json` says `"protocol": "matrix"` for a
/// Matrix store and nothing for wire v1, so wire v1 stores keep the bytes they always had.
public enum StoreProtocol: Sendable, Hashable, CustomStringConvertible {
    /// chatdir's own wire contract (docs/PROTOCOL.md), as `chatdir serve` speaks it; user IDs
    /// are names.
    case wire
    /// The Matrix client-server API; user IDs are Matrix user IDs, each conversation is a room.
    case matrix

    /// The manifest's `protocol` value; nil for wire v1, which writes no key.
    public var manifestValue: String? {
        switch self {
        case .wire: nil
        case .matrix: "matrix"
        }
    }

    /// The protocol a user ID belongs to: a Matrix user ID is only ever a Matrix store's.
    public init(of user: UserID) {
        self = user.isMatrix ? .matrix : .wire
    }

    /// How people call it, in settings and errors.
    public var description: String {
        switch self {
        case .wire: "wire v1"
        case .matrix: "matrix"
        }
    }

    /// nil when `user` is the kind of user ID this protocol's stores hold, else why not.
    public func userIDProblem(_ user: UserID) -> String? {
        switch (self, user.isMatrix) {
        case (.wire, false), (.matrix, true): nil
        case (.wire, true):
            "\(quoted(user.rawValue)) is a Matrix user ID, but this is a wire v1 store (its chatdir.json has no \"protocol\": \"matrix\"), whose user IDs are names like alice"
        case (.matrix, false):
            "\(quoted(user.rawValue)) is not a Matrix user ID (like @alice:example.org), which a Matrix store holds"
        }
    }
}
