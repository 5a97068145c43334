import ChatDomain
import ChatStore

/// `chatdir receipts`: who has one of my messages and who has read it, from the stored positions.
enum ReceiptsCommand: Command {
    static let spec = CommandSpec(
        name: "receipts",
        summary: "Who has one of my messages and who has read it (from the stored positions).",
        usage: ["CONV SEQ [--json]"],
        options: [
            .init(
                name: "--json", value: nil,
                help: "one JSON object: conversationId, sequence, and members, each with userId, delivered and read")
        ],
        discussion: """
            Each other member, with whether their devices have the message (delivered) and whether
            they have read it, as the sync worker last stored the positions: the tick ✓✓ sums this
            up for everyone. Reading a message implies having it.
            SEQ must be one of my stored messages (exit 65 otherwise); before the first sync stored
            the positions there is nothing to say yet (exit 75: run `chatdir sync`, then again).

            Example:
              chatdir receipts dinner 12
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(2)
        let id = try context.conversationID(try arguments.positional(0, "CONV (the conversation of the message)"))
        let sequenceText = try arguments.positional(
            1, "SEQ (the sequence of one of my messages, shown by `chatdir view --json`)")
        guard let sequence = Int(sequenceText), (1...Message.maxSequence).contains(sequence) else {
            throw context.usage(
                "SEQ must be a whole number from 1 to \(Message.maxSequence), not \(sequenceText.debugDescription)")
        }
        let store = try context.openStore()
        let conversation = try store.existingConversation(id)
        let snapshot = try conversation.snapshot(limit: 1, before: sequence + 1)
        guard let message = snapshot.messages.last, message.sequence == sequence else {
            throw CommandFailure(
                message: Self.noSuchMessage(
                    sequence, in: id, newest: try conversation.newestMessages(limit: 1).messages.last?.sequence),
                exitCode: 65)
        }
        guard message.senderID == store.userID else {
            throw CommandFailure(
                message: Self.notMine(sequence, in: id, sender: message.senderID, me: store.userID), exitCode: 65)
        }
        guard let positions = snapshot.positions else {
            throw CommandFailure(message: Self.notLoaded(id, hint: context.hint), exitCode: 75)
        }
        let receipts = MessageReceipts(
            sequence: sequence, sender: store.userID, members: snapshot.members(me: store.userID), positions: positions)
        if arguments.flag("--json") {
            context.output.print(Self.json(receipts, conversation: id))
        } else {
            context.output.print("\(id) \(sequence): " + receipts.summary)
            for line in receipts.memberLines(safe: context.output.safe) { context.output.print("  " + line) }
        }
        return 0
    }

    /// `{"conversationId":"dinner","sequence":12,"members":[{"userId":"bob","delivered":true,"read":true}]}`
    static func json(_ receipts: MessageReceipts, conversation: ConversationID) -> String {
        JSONLine.encode(
            .object([
                ("conversationId", .string(conversation.rawValue)),
                ("sequence", .integer(receipts.sequence)),
                (
                    "members",
                    .array(
                        receipts.members.map { member in
                            .object([
                                ("userId", .string(member.user.rawValue)), ("delivered", .bool(member.delivered)),
                                ("read", .bool(member.read)),
                            ])
                        })
                ),
            ]))
    }

    static func noSuchMessage(_ sequence: Int, in id: ConversationID, newest: Int?) -> String {
        let stored = newest.map { "the stored messages of \(id) end at \($0)" } ?? "\(id) has no stored messages yet"
        return
            "no message \(sequence) is stored in \(id) (\(stored); `chatdir sync` fetches newer ones, `chatdir history \(id)` older ones)"
    }

    static func notMine(_ sequence: Int, in id: ConversationID, sender: UserID, me: UserID) -> String {
        "message \(sequence) of \(id) was sent by \(sender), not by me (\(me)): receipts are shown for my own messages only"
    }

    static func notLoaded(_ id: ConversationID, hint: PasteHint) -> String {
        "receipts of \(id) are not loaded yet (no positions.json): run `\(hint.command("sync", ""))`, then ask again"
    }
}
