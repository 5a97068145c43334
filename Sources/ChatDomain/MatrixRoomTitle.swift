/// The title a Matrix room gets in `conversation.json`: the same on every device of the
/// account, from the room's state alone.
public enum MatrixRoomTitle {
    /// The room's `m.room.name`, else its canonical alias, else the joined members other than
    /// `me` sorted and joined by ", ", else the room ID. An empty name or alias counts as none,
    /// as the specification's display name rules say.
    public static func title(name: String?, canonicalAlias: String?, members: [UserID], me: UserID, roomID: String)
        -> String
    {
        if let name, !name.isEmpty { return name }
        if let canonicalAlias, !canonicalAlias.isEmpty { return canonicalAlias }
        let others = Set(members).subtracting([me]).sorted()
        if !others.isEmpty { return others.map(\.rawValue).joined(separator: ", ") }
        return roomID
    }
}
