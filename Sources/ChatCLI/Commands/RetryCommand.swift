import ChatDomain
import ChatStore

/// `chatdir retry`: puts failed messages back in the queue, same client message ID, at the back.
enum RetryCommand: Command {
    static let spec = CommandSpec(
        name: "retry",
        summary: "Queue failed messages again (same ID, back of the queue).",
        usage: ["CONV ID", "CONV --all", "--all"],
        options: [
            .init(
                name: "--all", value: nil, help: "every failed message of CONV, or of every conversation without CONV")
        ],
        discussion: """
            Prints the ID of each message queued again. A message that is still pending (queued
            already, perhaps by another retry at the same moment) is left as it is and said so.

            Example:
              chatdir retry c1 6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(2)
        let all = arguments.flag("--all")
        let store = try context.openStore()
        if all {
            if arguments.positionals.count > 1 { throw context.usage("give either ID or --all, not both") }
            let ids =
                try arguments.positionals.first.map { [try context.conversationID($0)] } ?? store.conversationIDs()
            var count = 0
            for id in ids {
                for entry in try Outbox(try store.existingConversation(id)).retryAll() {
                    context.output.print(entry.clientMessageID.rawValue)
                    count += 1
                }
            }
            if count == 0 { context.output.error("chatdir retry: no failed messages to retry; nothing to do") }
            return 0
        }
        let conversation = try context.conversationID(try arguments.positional(0, "CONV (or --all)"))
        let idText = try arguments.positional(1, "ID (the client message ID shown by `chatdir view`), or --all")
        let id: ClientMessageID
        do { id = try ClientMessageID(idText) } catch { throw context.usage(error.description) }
        let outcome = try Outbox(try store.existingConversation(conversation)).requeue(id)
        if outcome.alreadyPending {
            context.output.error("chatdir retry: \(id) is already queued (pending) in \(conversation); nothing to do")
        } else {
            context.output.print(outcome.entry.clientMessageID.rawValue)
        }
        return 0
    }
}
