import ChatDomain

/// One run of a `watch --exec` hook: what happened, where, and the text for its standard input.
struct HookEvent: Sendable, Equatable {
    /// Which events a hook is for (`--on`).
    enum Kind: String, Sendable, CaseIterable {
        /// Another member's new message.
        case message
        /// One of my own messages, stored after the server accepted it.
        case mine
        /// One of my queued messages was refused by the server (or gave up).
        case failed
        /// Another member's read position moved forward.
        case read
    }

    var kind: Kind
    var conversation: ConversationID
    var title: String
    /// The message's sender; for `read`, the member who read.
    var sender: UserID
    /// The message's sequence; for `read`, the new read position; nil for `failed`.
    var sequence: Int?
    /// For `failed`: the client message ID and the server's reason.
    var clientMessageID: ClientMessageID?
    var error: String?
    /// The message text (empty for `read`): only ever on the hook's standard input.
    var text: String

    /// How log lines name it: `message dinner #12`, `failed dinner 0FD6…`.
    var label: String {
        if let sequence { return "\(kind.rawValue) \(conversation) #\(sequence)" }
        if let clientMessageID { return "\(kind.rawValue) \(conversation) \(clientMessageID)" }
        return "\(kind.rawValue) \(conversation)"
    }

    /// The variables a hook gets on top of watch's own environment. Never the text: `ps` and
    /// a shell's expansion would see it there.
    func environment(store: String) -> [String: String] {
        var variables = [
            "CHATDIR_STORE": store, "CHATDIR_EVENT": kind.rawValue, "CHATDIR_CONVERSATION": conversation.rawValue,
            "CHATDIR_TITLE": title, "CHATDIR_SENDER": sender.rawValue,
            "CHATDIR_SEQUENCE": sequence.map(String.init) ?? "",
        ]
        if let clientMessageID { variables["CHATDIR_CLIENT_MESSAGE_ID"] = clientMessageID.rawValue }
        if let error { variables["CHATDIR_ERROR"] = error }
        return variables
    }
}
