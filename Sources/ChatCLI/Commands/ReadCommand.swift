import ChatDomain
import ChatStore

/// `chatdir read`: records that I have read a conversation, durably, for the worker to post.
enum ReadCommand: Command {
    static let spec = CommandSpec(
        name: "read",
        summary: "Mark a conversation read (works offline; the sync worker tells the server).",
        usage: ["CONV [--up-to SEQ]"],
        options: [
            .init(name: "--up-to", value: "SEQ", help: "read up to this sequence (default: the newest stored message)")
        ],
        discussion: """
            The read position only moves forward: marking an older sequence keeps the newer one.
            SEQ past the newest stored message is refused (exit 65): `chatdir sync` fetches newer ones.
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
        let newest = try conversation.newestMessages(limit: 1).messages.last?.sequence
        if let upTo, upTo > newest ?? 0 {
            throw CommandFailure(message: Self.pastNewest(upTo, newest: newest, in: id), exitCode: 65)
        }
        guard let sequence = upTo ?? newest else {
            context.output.error("chatdir read: \(id) has no messages yet; nothing to mark")
            return 0
        }
        let marked = try Outbox(conversation).wantRead(upTo: sequence)
        context.output.print(
            context.output.isTerminal
                ? "marked \(id) read up to \(marked); the next sync tells the others" : String(marked))
        return 0
    }

    /// Why `--up-to` past the newest stored message is refused: a wish the server cannot reach
    /// would mark every later message read the moment it arrives.
    static func pastNewest(_ upTo: Int, newest: Int?, in id: ConversationID) -> String {
        let stored =
            newest.map { "the newest stored message of \(id) is \($0); give --up-to \($0) or lower" }
            ?? "\(id) has no stored messages yet"
        return "cannot mark \(id) read up to \(upTo): \(stored) (`chatdir sync` fetches newer ones)"
    }
}
