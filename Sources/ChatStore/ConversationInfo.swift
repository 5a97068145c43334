import ChatDomain

/// `conversation.json`: the conversation's title and members; in a Matrix store also its room
/// and whether the room is end-to-end encrypted.
public struct ConversationInfo: Hashable, Sendable {
    public var title: String
    public var members: [UserID]
    /// The Matrix room this conversation is (`!opaque:server`, or `!opaque` from room version
    /// 12); every conversation of a Matrix store has one, none of a wire v1 store does.
    public var roomID: String?
    /// Whether the room has turned on end-to-end encryption, which chatdir cannot read or send
    /// into; only ever true in a Matrix store.
    public var encrypted: Bool

    public init(title: String, members: [UserID], roomID: String? = nil, encrypted: Bool = false) {
        self.title = title
        self.members = members
        self.roomID = roomID
        self.encrypted = encrypted
    }

    /// The protocol of a store this could be in: Matrix when it names a room.
    public var storeProtocol: StoreProtocol { roomID == nil ? .wire : .matrix }

    /// One key per line, sorted; members sorted so every device writes the same bytes. The
    /// Matrix keys are written only when set, so a wire v1 file has the bytes it always had.
    public func encode() -> [UInt8] {
        var writer = JSONWriter()
        writer.raw("{\n")
        if encrypted {
            writer.key("encrypted")
            writer.raw("true,\n")
        }
        writer.key("members")
        writer.write(.array(members.sorted().map { .string($0.rawValue) }))
        if let roomID {
            writer.raw(",\n")
            writer.key("roomId")
            writer.write(roomID)
        }
        writer.raw(",\n")
        writer.key("title")
        writer.write(title)
        writer.raw("\n}\n")
        return writer.bytes
    }

    /// The details from a file in exactly the layout ``encode()`` writes, with no escape in the
    /// title, read without a JSON tree (what opening a conversation reads every time); nil for
    /// anything else, which ``decode(_:path:protocol:)`` then reads and reports on. Checked by
    /// encoding the result again and by `storeProtocol`'s rules: a file this accepts is one
    /// ``decode(_:path:protocol:)`` reads the same.
    public static func decodeCanonical(
        _ bytes: [UInt8], protocol storeProtocol: StoreProtocol = .wire, awaitingRoom: Bool = false
    ) -> ConversationInfo? {
        let info: ConversationInfo? = bytes.withUnsafeBufferPointer { buffer in
            var cursor = ByteCursor(bytes: buffer, index: 0, end: buffer.count)
            guard cursor.literal("{\n") else { return nil }
            let encrypted = cursor.literal("\"encrypted\":true,\n")
            guard cursor.literal("\"members\":[") else { return nil }
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
            var roomID: String?
            if cursor.literal(",\n\"roomId\":\"") {
                guard let room = cursor.plainString().flatMap(ByteCursor.string) else { return nil }
                roomID = room
            }
            guard cursor.literal(",\n\"title\":\""), let title = cursor.plainString().flatMap(ByteCursor.string),
                cursor.literal("\n}\n"), cursor.index == buffer.count
            else { return nil }
            return ConversationInfo(title: title, members: members, roomID: roomID, encrypted: encrypted)
        }
        guard let info, info.encode() == bytes, info.problems(in: storeProtocol, awaitingRoom: awaitingRoom).isEmpty
        else { return nil }
        return info
    }

    /// What breaks `storeProtocol`'s rules for this file: a Matrix store's names a valid room
    /// and only Matrix user IDs; a wire v1 store's has no Matrix key and only names.
    /// `awaitingRoom`: the conversation was started here and its room is not made yet (its
    /// `outbox/create.json` is there), so a Matrix store's file names no room yet.
    func problems(in storeProtocol: StoreProtocol, awaitingRoom: Bool = false) -> [String] {
        var problems: [String] = []
        switch (storeProtocol, roomID) {
        case (.wire, let room?):
            problems.append(
                "\"roomId\" \(quoted(room)) belongs in a Matrix store's conversation only; this is a wire v1 store, remove the line"
            )
        case (.wire, nil):
            if encrypted {
                problems.append(
                    "\"encrypted\" belongs in a Matrix store's conversation only; this is a wire v1 store, remove the line"
                )
            }
        case (.matrix, nil):
            if awaitingRoom { break }
            problems.append(
                "the field \"roomId\" is missing; a Matrix store's conversation names its room (restore the file from git or another device)"
            )
        case (.matrix, let room?):
            if let reason = MatrixIdentifierGrammar.problem(room, sigil: UInt8(ascii: "!"), server: .optional) {
                problems.append("\"roomId\": \(quoted(room)) is not a Matrix room ID: \(reason)")
            }
        }
        for (index, member) in members.enumerated() {
            if let reason = storeProtocol.userIDProblem(member) { problems.append("members[\(index)]: \(reason)") }
        }
        return problems
    }

    /// Reads and reports on any layout. `storeProtocol` is the store's (wire v1 unless told),
    /// whose rules the file must keep; nil reads the file as the protocol it says (Matrix when
    /// it has `roomId`), for the merge driver, which has no manifest at hand.
    public static func decode(
        _ bytes: [UInt8], path: String, protocol storeProtocol: StoreProtocol? = .wire, awaitingRoom: Bool = false
    ) -> (info: ConversationInfo?, problems: [StoreProblem]) {
        var problems: [StoreProblem] = []
        guard let value = parseWholeFile(bytes, path: path, problems: &problems),
            var reader = RecordReader(value, what: "conversation details", path: path, line: nil, problems: &problems)
        else { return (nil, problems) }
        var encrypted = false
        if let flag = reader.boolean("encrypted") {
            if flag {
                encrypted = true
            } else {
                reader.problem(
                    "\"encrypted\" is written only as true; remove the line for a room that is not encrypted")
            }
        }
        let title = reader.string("title")
        let members = reader.userIDs("members")
        let roomID = reader.string("roomId", required: false)
        reader.rejectUnknownKeys(["encrypted", "members", "roomId", "title"])
        let info = title.map { ConversationInfo(title: $0, members: members, roomID: roomID, encrypted: encrypted) }
        if let info {
            for problem in info.problems(in: storeProtocol ?? info.storeProtocol, awaitingRoom: awaitingRoom) {
                reader.problem(problem)
            }
        }
        problems.append(contentsOf: reader.problems)
        guard reader.problems.isEmpty, let info else { return (nil, problems) }
        return (info, problems)
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
