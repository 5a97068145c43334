import ChatDomain

/// A conversation as `GET /v1/conversations` lists it.
public struct WireConversation: Sendable, Equatable {
    public var id: ConversationID
    public var title: String
    public var members: [UserID]
    public var lastSequence: Int

    public init(id: ConversationID, title: String, members: [UserID], lastSequence: Int) {
        self.id = id
        self.title = title
        self.members = members
        self.lastSequence = lastSequence
    }
}

/// A page of `GET /v1/conversations/{id}/messages`.
public struct MessagesPage: Sendable, Equatable {
    public var items: [Message]
    public var hasMore: Bool

    public init(items: [Message], hasMore: Bool) {
        self.items = items
        self.hasMore = hasMore
    }
}

/// A server → client event on `/v1/live`.
public enum LiveEvent: Sendable, Equatable {
    case message(ConversationID, Message)
    case receipt(ConversationID, UserID, MemberPosition)
    /// That member was typing in that conversation just now (ephemeral: never stored, never in a
    /// catch-up; a receiver shows it until 6 s pass without another or the member's message arrives).
    case typing(ConversationID, UserID)
    /// A conversation with this member was just started (`POST /v1/conversations`, a v1
    /// extension): its title and members. A receiver lists conversations to confirm it.
    case conversation(ConversationID, title: String, members: [UserID])
}

/// The body of `POST /v1/conversations/{id}/messages`: what the client sends; the server gives
/// it a sequence, a sender and a timestamp.
public struct PostedMessage: Sendable, Equatable {
    public var clientMessageID: ClientMessageID
    public var text: String

    public init(clientMessageID: ClientMessageID, text: String) {
        self.clientMessageID = clientMessageID
        self.text = text
    }
}

/// Which of a member's two positions a request moves or an answer reports.
public enum PositionKind: Sendable, Hashable, CaseIterable {
    /// `POST …/delivered`, answered `{"deliveredUpTo": n}`.
    case delivered
    /// `POST …/read`, answered `{"readUpTo": n}`.
    case read

    /// The answer's key.
    var key: StaticString {
        switch self {
        case .delivered: "deliveredUpTo"
        case .read: "readUpTo"
        }
    }

    var keyText: String { key.withUTF8Buffer { String(decoding: $0, as: UTF8.self) } }
}
