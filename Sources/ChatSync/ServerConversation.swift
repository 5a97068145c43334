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

    var info: ConversationInfo { ConversationInfo(title: title, members: members) }
}
