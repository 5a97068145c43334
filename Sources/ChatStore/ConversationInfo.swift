import ChatDomain

/// `conversation.json`: the conversation's title and members.
public struct ConversationInfo: Hashable, Sendable {
    public var title: String
    public var members: [UserID]

    public init(title: String, members: [UserID]) {
        self.title = title
        self.members = members
    }

    /// One key per line; members sorted so every device writes the same bytes.
    public func encode() -> [UInt8] {
        var writer = JSONWriter()
        writer.raw("{\n"); writer.key("members")
        writer.write(.array(members.sorted().map { .string($0.rawValue) }))
        writer.raw(",\n"); writer.key("title"); writer.write(title)
        writer.raw("\n}\n")
        return writer.bytes
    }

    public static func decode(_ bytes: [UInt8], path: String) -> (info: ConversationInfo?, problems: [StoreProblem]) {
        var problems: [StoreProblem] = []
        guard let value = parseWholeFile(bytes, path: path, problems: &problems),
              var reader = RecordReader(value, what: "conversation details", path: path, line: nil, problems: &problems) else { return (nil, problems) }
        let title = reader.string("title")
        let members = reader.userIDs("members")
        reader.rejectUnknownKeys(["members", "title"])
        problems.append(contentsOf: reader.problems)
        guard reader.problems.isEmpty, let title else { return (nil, problems) }
        return (ConversationInfo(title: title, members: members), problems)
    }
}

extension RecordReader {
    /// The array `key` of user IDs (`conversation.json`, `outbox/create.json`); each element that
    /// is not a valid user ID is a problem naming its index.
    mutating func userIDs(_ key: String) -> [UserID] {
        var users: [UserID] = []
        for (index, element) in (array(key) ?? []).enumerated() {
            guard case let .string(text) = element, let user = try? UserID(text) else {
                problem("\(key)[\(index)] must be a valid user ID, found \(element.typeDescription == "a string" ? quoted(element.stringValue ?? "") : element.typeDescription)")
                continue
            }
            users.append(user)
        }
        return users
    }
}
