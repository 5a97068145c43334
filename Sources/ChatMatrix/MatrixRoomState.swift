import ChatDomain

/// What chatdir keeps of a joined room's state: its name, published alias, joined members and
/// whether it is end-to-end encrypted. Read from the state events a `/sync` gives (its `state`
/// block, then the timeline's state events in order), a later event of one type and state key
/// replacing an earlier one, as the room's state does.
public struct MatrixRoomState: Sendable, Hashable {
    public var roomID: MatrixRoomID
    public var name: String?
    public var canonicalAlias: String?
    /// Members whose membership is `join`, sorted.
    public var members: [MatrixUserID]
    /// Whether an `m.room.encryption` event is in the state: once a room is encrypted it stays
    /// so (the specification forbids turning it off), so even a redacted or unreadable one counts.
    public var encrypted: Bool

    public init(roomID: MatrixRoomID, events: [MatrixEvent]) {
        self.roomID = roomID
        var latest: [StateKey: MatrixEventContent] = [:]
        var encrypted = false
        for event in events {
            guard let stateKey = event.stateKey else { continue }
            if event.type == "m.room.encryption" { encrypted = true }
            latest[StateKey(type: event.type, key: stateKey)] = event.content
        }
        if case .name(let name)? = latest[StateKey(type: "m.room.name", key: "")] { self.name = name }
        if case .canonicalAlias(let alias)? = latest[StateKey(type: "m.room.canonical_alias", key: "")] {
            canonicalAlias = alias
        }
        members = latest.compactMap { key, content in
            guard key.type == "m.room.member", case .member(membership: "join", _) = content else { return nil }
            return try? MatrixUserID(key.key)
        }.sorted()
        self.encrypted = encrypted
    }

    /// A joined room's state as one `/sync` gives it.
    public init(_ room: MatrixJoinedRoom) {
        self.init(roomID: room.id, events: room.state + room.timeline.events)
    }

    private struct StateKey: Hashable {
        var type: String
        var key: String
    }
}
