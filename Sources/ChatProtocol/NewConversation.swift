import ChatDomain

/// The body of `POST /v1/conversations` (a v1 extension, docs/PROTOCOL.md): a conversation to
/// start, with its ID, its title and every member (the creator among them).
public struct NewConversation: Sendable, Equatable {
    /// The most members one conversation can be started with.
    public static let maxMembers = 1_000
    /// The longest title, in characters: what a conversation list keeps of one.
    public static let maxTitleLength = 200

    public var id: ConversationID
    public var title: String
    /// Sorted, each once.
    public var members: [UserID]

    /// Members are sorted and each kept once, so the same creation always gives the same body.
    public init(id: ConversationID, title: String, members: [UserID]) {
        self.id = id
        self.title = title
        self.members = Array(Set(members)).sorted()
    }

    /// Why `title` cannot be a conversation's title, or nil when it can: one line of at most
    /// ``maxTitleLength`` characters, not only white space, no control characters.
    public static func problem(withTitle title: String) -> String? {
        if title.unicodeScalars.allSatisfy({ $0.properties.isWhitespace }) {
            return "the title is empty; give the conversation a title"
        }
        if title.count > maxTitleLength {
            return "the title has \(title.count) characters; at most \(maxTitleLength) are allowed"
        }
        if title.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "the title contains a control character (a line break or a tab); keep it on one line"
        }
        return nil
    }
}
