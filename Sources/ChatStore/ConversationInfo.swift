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
        writer.raw("{\n")
        writer.key("members")
        writer.write(.array(members.sorted().map { .string($0.rawValue) }))
        writer.raw(",\n")
        writer.key("title")
        writer.write(title)
        writer.raw("\n}\n")
        return writer.bytes
    }

    /// The details from a file in exactly the layout ``encode()`` writes, with no escape in the
    /// title, read without a JSON tree (what opening a conversation reads every time); nil for
    /// anything else, which ``decode(_:path:)`` then reads and reports on. Checked by encoding
    /// the result again: a file this accepts is one ``decode(_:path:)`` reads the same.
    public static func decodeCanonical(_ bytes: [UInt8]) -> ConversationInfo? {
        let info: ConversationInfo? = bytes.withUnsafeBufferPointer { buffer in
            var cursor = ByteCursor(bytes: buffer, index: 0, end: buffer.count)
            guard cursor.literal("{\n\"members\":[") else { return nil }
            var members: [UserID] = []
            if !cursor.literal("]") {
                repeat {
                    guard cursor.literal("\""), let name = cursor.plainString(), let user = UserID(utf8: name) else {
                        return nil
                    }
                    members.append(user)
                } while cursor.literal(",")
                guard cursor.literal("]") else { return nil }
            }
            guard cursor.literal(",\n\"title\":\""), let title = cursor.plainString().flatMap(ByteCursor.string),
                cursor.literal("\n}\n"), cursor.index == buffer.count
            else { return nil }
            return ConversationInfo(title: title, members: members)
        }
        guard let info, info.encode() == bytes else { return nil }
        return info
    }

    public static func decode(_ bytes: [UInt8], path: String) -> (info: ConversationInfo?, problems: [StoreProblem]) {
        var problems: [StoreProblem] = []
        guard let value = parseWholeFile(bytes, path: path, problems: &problems),
            var reader = RecordReader(value, what: "conversation details", path: path, line: nil, problems: &problems)
        else { return (nil, problems) }
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
            guard case .string(let text) = element, let user = try? UserID(text) else {
                problem(
                    "\(key)[\(index)] must be a valid user ID, found \(element.typeDescription == "a string" ? quoted(element.stringValue ?? "") : element.typeDescription)"
                )
                continue
            }
            users.append(user)
        }
        return users
    }
}
