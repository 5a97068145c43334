import ChatDomain
import ChatStore

/// `chatdir read`: records that I have read a conversation, durably, for the worker to post.
enum ReadCommand: Command {
    static let spec = CommandSpec(
        name: "read",
        summary: "Mark a conversation read (works offline; the sync worker tells the server).",
        usage: ["CONV [--up-to SEQ]"],
        options: [
            .init(name: "--up-to", value: "SEQ", help: "read up to this sequence (default: the newest stored message)"),
        ],
        discussion: """
        The read position only moves forward: marking an older sequence keeps the newer one.
        Prints the position now wanted. Senders see ✓✓ read once the worker has posted it.
        """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let id = try context.conversationID(try arguments.positional(0, "CONV (the conversation you read)"))
        let upTo = try arguments.integer("--up-to", in: 1...(1 << 53))
        let store = try context.openStore()
        let conversation = try store.existingConversation(id)
        guard let sequence = try upTo ?? conversation.newestMessages(limit: 1).messages.last?.sequence else {
            context.output.error("chatdir read: \(id) has no messages yet; nothing to mark")
            return 0
        }
        context.output.print(String(try Outbox(conversation).wantRead(upTo: sequence)))
        return 0
    }
}
