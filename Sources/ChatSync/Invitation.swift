/// A conversation the server invites me to and I have not joined (Matrix: `rooms.invite`):
/// what `chatdir sync` tells, with the command that joins it.
public struct Invitation: Sendable, Equatable {
    /// What `chatdir join` takes: the room ID.
    public var room: String
    /// The room's name as the invite shows it, if it has one.
    public var name: String?
    /// Who invited me, when the invite says.
    public var inviter: String?

    public init(room: String, name: String?, inviter: String?) {
        self.room = room
        self.name = name
        self.inviter = inviter
    }
}
