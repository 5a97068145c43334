import ChatDomain
import ChatWire

/// The endpoints of wire v1 (docs/PROTOCOL.md) as values: one case per method and path, with
/// the path's parameters as associated values. The client builds request lines from it
/// (``method``, ``path``); the server dispatches on it (``resolve(method:path:)``), and its
/// 404 and 405 answers are generated from the same table. A new endpoint is one case here (the
/// compiler then asks for its method and path template) plus its handler.
public enum Endpoint: Sendable, Hashable {
    /// `GET /v1/me`: who the token stands for.
    case me
    /// `GET /v1/conversations`: the conversations the user is a member of.
    case conversations
    /// `POST /v1/conversations`: start a conversation (``NewConversation``; a v1 extension).
    case createConversation
    /// `GET /v1/conversations/{id}/messages`: a page of messages (``MessagesQuery``).
    case messages(ConversationID)
    /// `POST /v1/conversations/{id}/messages`: send one message (``PostedMessage``).
    case postMessage(ConversationID)
    /// `GET /v1/conversations/{id}/receipts`: every member's positions.
    case receipts(ConversationID)
    /// `POST /v1/conversations/{id}/delivered`: move the user's delivered position.
    case delivered(ConversationID)
    /// `POST /v1/conversations/{id}/read`: move the user's read position.
    case read(ConversationID)
    /// `POST /v1/conversations/{id}/typing`: the user is typing there now (nothing is stored).
    case typing(ConversationID)
    /// `GET /v1/live`: the WebSocket upgrade for live events (``LiveEvent``).
    case live

    /// An endpoint without its parameters: what the route table lists.
    public enum Kind: Sendable, Hashable, CaseIterable {
        case me, conversations, createConversation, messages, postMessage, receipts, delivered, read, typing, live

        public var method: String {
            switch self {
            case .me, .conversations, .messages, .receipts, .live: "GET"
            case .createConversation, .postMessage, .delivered, .read, .typing: "POST"
            }
        }

        /// The path, segment by segment after the leading `/`.
        var template: [PathPart] {
            switch self {
            case .me: ["v1", "me"]
            case .conversations, .createConversation: ["v1", "conversations"]
            case .messages, .postMessage: ["v1", "conversations", .conversationID, "messages"]
            case .receipts: ["v1", "conversations", .conversationID, "receipts"]
            case .delivered: ["v1", "conversations", .conversationID, "delivered"]
            case .read: ["v1", "conversations", .conversationID, "read"]
            case .typing: ["v1", "conversations", .conversationID, "typing"]
            case .live: ["v1", "live"]
            }
        }
    }

    /// One segment of a path template.
    enum PathPart: Hashable, ExpressibleByStringLiteral {
        case literal(String)
        case conversationID

        init(stringLiteral value: String) { self = .literal(value) }
    }

    public var kind: Kind {
        switch self {
        case .me: .me
        case .conversations: .conversations
        case .createConversation: .createConversation
        case .messages: .messages
        case .postMessage: .postMessage
        case .receipts: .receipts
        case .delivered: .delivered
        case .read: .read
        case .typing: .typing
        case .live: .live
        }
    }

    /// The conversation the path names, if it names one.
    public var conversation: ConversationID? {
        switch self {
        case .me, .conversations, .createConversation, .live: nil
        case .messages(let id), .postMessage(let id), .receipts(let id), .delivered(let id), .read(let id),
            .typing(let id):
            id
        }
    }

    /// `kind` with its parameter; nil when the kind takes a conversation and none is given.
    init?(_ kind: Kind, conversation: ConversationID?) {
        switch kind {
        case .me: self = .me
        case .conversations: self = .conversations
        case .createConversation: self = .createConversation
        case .live: self = .live
        case .messages, .postMessage, .receipts, .delivered, .read, .typing:
            guard let conversation else { return nil }
            self =
                switch kind {
                case .messages: .messages(conversation)
                case .postMessage: .postMessage(conversation)
                case .receipts: .receipts(conversation)
                case .delivered: .delivered(conversation)
                case .typing: .typing(conversation)
                default: .read(conversation)
                }
        }
    }

    public var method: String { kind.method }

    /// The request path, e.g. `/v1/conversations/c1/messages`. Conversation IDs need no
    /// percent-encoding: their characters are letters, digits, `.`, `_` and `-`.
    public var path: String {
        kind.template.map { part in
            switch part {
            case .literal(let text): "/" + text
            case .conversationID: "/" + (conversation?.rawValue ?? "")
            }
        }.joined()
    }

    /// The endpoint a request line names; nil when none does (``resolve(method:path:)`` says why).
    public init?(method: String, path: String) {
        guard case .found(let endpoint) = Self.resolve(method: method, path: path) else { return nil }
        self = endpoint
    }

    /// What a request line names, or why it names no endpoint.
    public enum Resolution: Sendable, Equatable {
        case found(Endpoint)
        /// A path of wire v1 whose parameter is not valid (`/v1/conversations/..%2F/messages`):
        /// a 400, once the request is authenticated.
        case invalidParameter(DomainError)
        /// The path exists, the method does not: a 405 with `Allow: <allowed>`.
        case methodNotAllowed(method: String, allowed: [String])
        /// No such path: a 404 with ``notFoundMessage``.
        case notFound(path: String, hint: String)

        /// The 405's reason: `DELETE is not allowed here; use GET or POST`.
        public static func methodNotAllowedMessage(_ method: String, allowed: [String]) -> String {
            "\(method) is not allowed here; use \(allowed.joined(separator: " or "))"
        }
    }

    /// Resolves a request line: `path` is the target's path without the query. Its segments are
    /// percent-decoded (``HTTPRequestTarget/pathSegments``) before they are matched.
    public static func resolve(method: String, path: String) -> Resolution {
        let segments = HTTPRequestTarget(path: path).pathSegments
        let matching = Kind.allCases.filter { matches($0.template, segments) }
        guard !matching.isEmpty else { return .notFound(path: path, hint: notFoundHint(segments)) }
        guard let kind = matching.first(where: { $0.method == method }) else {
            var allowed: [String] = []
            for kind in matching where !allowed.contains(kind.method) { allowed.append(kind.method) }
            return .methodNotAllowed(method: method, allowed: allowed)
        }
        var conversation: ConversationID?
        for (part, segment) in zip(kind.template, segments) where part == .conversationID {
            do { conversation = try ConversationID(segment) } catch { return .invalidParameter(error) }
        }
        guard let endpoint = Endpoint(kind, conversation: conversation) else {
            return .notFound(path: path, hint: notFoundHint(segments))
        }
        return .found(endpoint)
    }

    /// The 404's reason for `path`, naming what exists instead.
    public static func notFoundMessage(path: String, hint: String) -> String {
        "no endpoint \(quoted(path)); \(hint)"
    }

    private static func matches(_ template: [PathPart], _ segments: [String]) -> Bool {
        guard template.count == segments.count else { return false }
        for (part, segment) in zip(template, segments) {
            if case .literal(let text) = part, text != segment { return false }
        }
        return true
    }

    /// Under a conversation (`/v1/conversations/{id}/<unknown>`): the names a conversation has;
    /// elsewhere, a pointer to the protocol's documentation.
    private static func notFoundHint(_ segments: [String]) -> String {
        var names: [String] = []
        for kind in Kind.allCases {
            let template = kind.template
            guard template.count == segments.count, template.dropLast().contains(.conversationID),
                matches(Array(template.dropLast()), Array(segments.dropLast())),
                case .literal(let name)? = template.last, !names.contains(name)
            else { continue }
            names.append(name)
        }
        guard let last = names.last else { return "see docs/PROTOCOL.md for the endpoints of wire v1" }
        let list = names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
        return "a conversation has \(list)"
    }
}
