import ChatDomain

/// `outbox/create.json`: a conversation started on this device (`chatdir create`) that the
/// server has not accepted yet. One line, keys sorted, `error` only when failed:
///
/// ```
/// {"createdAt":"2026-12-01T23:40:00.000Z","members":["alice","bob"],"state":"pending","title":"Dinner"}
/// ```
///
/// While it is there the sync worker posts it before any of the conversation's messages, and
/// removes it once the server has the conversation; failed, it stays, and so do the messages.
public struct QueuedCreation: Sendable, Equatable {
    public var title: String
    /// Every member, the creator among them; sorted.
    public var members: [UserID]
    /// This device's clock when `create` ran.
    public var createdAt: String
    public var state: SendState
    /// Why the server refused it; only when failed.
    public var error: String?

    public init(title: String, members: [UserID], createdAt: String, state: SendState = .pending, error: String? = nil)
    {
        self.title = title
        self.members = Array(Set(members)).sorted()
        self.createdAt = createdAt
        self.state = state
        self.error = error
    }

    /// The name every attempt at this creation carries to the server, the same on each retry
    /// (a Matrix room's `m.room.create` content holds it), so an attempt whose answer was lost
    /// is found again instead of made twice: the first 32 lower-case hexadecimal digits of
    /// SHA-256 of `USER`, `ID` and `createdAt` joined by newlines (docs/FORMAT.md).
    public func key(for id: ConversationID, by user: UserID) -> String {
        String(SHA256.hex((user.rawValue + "\n" + id.rawValue + "\n" + createdAt).utf8).prefix(32))
    }

    public func encode() -> [UInt8] {
        var writer = JSONWriter()
        writer.raw("{")
        writer.key("createdAt")
        writer.write(createdAt)
        if state == .failed, let error {
            writer.raw(",")
            writer.key("error")
            writer.write(error)
        }
        writer.raw(",")
        writer.key("members")
        writer.write(.array(members.map { .string($0.rawValue) }))
        writer.raw(",")
        writer.key("state")
        writer.write(state.rawValue)
        writer.raw(",")
        writer.key("title")
        writer.write(title)
        writer.raw("}\n")
        return writer.bytes
    }

    public static func decode(_ bytes: [UInt8], path: String) -> (creation: QueuedCreation?, problems: [StoreProblem]) {
        var problems: [StoreProblem] = []
        guard let value = parseWholeFile(bytes, path: path, problems: &problems),
            var reader = RecordReader(value, what: "a queued conversation", path: path, line: 1, problems: &problems)
        else { return (nil, problems) }
        let createdAt = reader.string("createdAt")
        let title = reader.string("title")
        let stateText = reader.string("state")
        let error = reader.string("error", required: false)
        let members = reader.userIDs("members")
        reader.rejectUnknownKeys(["createdAt", "error", "members", "state", "title"])
        var state: SendState?
        if let stateText {
            state = SendState(rawValue: stateText)
            if state == nil {
                reader.problem("\"state\" must be \"pending\" or \"failed\", found \(quoted(stateText))")
            }
        }
        if state == .pending, error != nil {
            reader.problem("a pending creation has an \"error\"; remove it or set \"state\" to \"failed\"")
        }
        problems.append(contentsOf: reader.problems)
        guard reader.problems.isEmpty, let createdAt, let title, let state else { return (nil, problems) }
        return (
            QueuedCreation(title: title, members: members, createdAt: createdAt, state: state, error: error), problems
        )
    }
}

extension Conversation {
    /// The creation queued here (`outbox/create.json`), or nil when there is none.
    public func queuedCreation() throws(StoreError) -> QueuedCreation? {
        let name = StoreLayout.outbox + "/" + StoreLayout.creation
        guard let bytes = try read(name) else { return nil }
        let decoded = QueuedCreation.decode(bytes, path: relative(name))
        if let problem = decoded.problems.first(where: { $0.severity == .error }) { throw .damaged(problem) }
        return decoded.creation
    }
}
