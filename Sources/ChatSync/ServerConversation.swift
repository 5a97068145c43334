import ChatDomain
import ChatStore

/// A conversation as a server lists it.
struct ServerConversation: Sendable, Equatable {
    var id: ConversationID
    var title: String
    var members: [UserID]
    /// Its newest sequence when the list says (a pass catches up that far), nil when the
    /// protocol's list cannot say.
    var head: Int?
    /// The Matrix room it is, in a Matrix store (nil in wire v1).
    var roomID: String? = nil
    /// Whether the room is end-to-end encrypted (Matrix only): listed, never synced.
    var encrypted = false

    var info: ConversationInfo {
        ConversationInfo(title: title, members: members, roomID: roomID, encrypted: encrypted)
    }
}
