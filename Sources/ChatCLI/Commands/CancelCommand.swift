import ChatDomain
import ChatStore

/// `chatdir cancel`: removes a pending or failed message the server has not accepted.
enum CancelCommand: Command {
    static let spec = CommandSpec(
        name: "cancel",
        summary: "Remove a pending or failed message the server has not accepted.",
        usage: ["CONV ID", "--all-failed [CONV]"],
        options: [
            .init(
                name: "--all-failed", value: nil,
                help: "show every failed message (of CONV, or of every conversation) and remove them")
        ],
        discussion: """
            Prints "cancelled ID" for each message removed from the outbox: it will never be sent.
            When the sync worker is delivering that message at this moment, cancel waits for the
            attempt to end, then says what happened: a message the server accepted first is not
            cancelled, and stays in the conversation as sent.

            Exit status: 0 cancelled; 65 it was already sent (the server has it); 66 no such
            message in the outbox (`chatdir view CONV` shows the IDs); 75 it kept changing under
            a busy worker (run cancel again).

            A pending message whose earlier attempts got no answer may have reached the server
            all the same; cancel says so, and the next sync shows it as sent if it did.

            Examples:
              chatdir cancel dinner 6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3
              chatdir cancel --all-failed
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(2)
        let store = try context.openStore()
        if arguments.flag("--all-failed") {
            if arguments.positionals.count > 1 {
                throw context.usage("give either CONV ID or --all-failed [CONV], not both")
            }
            let ids =
                try arguments.positionals.first.map { [try context.conversationID($0)] } ?? store.conversationIDs()
            return try cancelFailed(context, store: store, in: ids)
        }
        let conversation = try context.conversationID(try arguments.positional(0, "CONV (or --all-failed)"))
        let idText = try arguments.positional(1, "ID (the client message ID shown by `chatdir view`), or --all-failed")
        let id: ClientMessageID
        do { id = try ClientMessageID(idText) } catch { throw context.usage(error.description) }
        let outbox = Outbox(try store.existingConversation(conversation))
        return try cancel(context, id, in: outbox)
    }

    /// Cancels one message and reports it; returns the exit status.
    private static func cancel(_ context: Context, _ id: ClientMessageID, in outbox: Outbox) throws -> Int32 {
        let output = context.output
        let conversation = outbox.conversation.id
        let outcome = try outbox.cancel(id) {
            output.error(
                "chatdir cancel: the sync worker is delivering \(id) right now; waiting for the attempt to end…")
        }
        switch outcome {
        case .cancelled(let entry):
            output.print("cancelled \(id)")
            if entry.state == .pending, entry.attempts > 0 {
                output.error(
                    "chatdir cancel: note: \(entry.attempts) earlier attempt\(plural(entry.attempts)) to send it got no answer; if the server took it all the same, the next sync shows it as sent in \(conversation)"
                )
            }
            return 0
        case .alreadySent(let sequence):
            throw CommandFailure(
                message:
                    "\(id) was already sent: the server accepted it (sequence \(sequence) in \(conversation)), so it stays; nothing was cancelled",
                exitCode: 65)
        }
    }

    /// `--all-failed`: each failed message shown, then cancelled.
    private static func cancelFailed(_ context: Context, store: Store, in ids: [ConversationID]) throws -> Int32 {
        let output = context.output
        var cancelled = 0
        var status: Int32 = 0
        for id in ids {
            let outbox = Outbox(try store.existingConversation(id))
            for entry in try outbox.failed() {
                output.print(
                    output.safe(
                        "failed: \(id) \(entry.clientMessageID) \(quoted(entry.text)) (\(entry.error ?? "no reason given"))"
                    ))
                do {
                    if try cancel(context, entry.clientMessageID, in: outbox) == 0 { cancelled += 1 }
                } catch let failure as CommandFailure {
                    output.error("chatdir cancel: \(failure.message)")
                    status = failure.exitCode
                }
            }
        }
        if cancelled == 0 && status == 0 { output.error("chatdir cancel: no failed messages to cancel; nothing to do") }
        return status
    }
}
