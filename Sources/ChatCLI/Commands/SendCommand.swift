import ChatDomain
import ChatStore
import ChatSystem

/// `chatdir send`: queues a message in the outbox, durably, and prints its client message ID.
enum SendCommand: Command {
    static let spec = CommandSpec(
        name: "send",
        summary: "Queue a message (works offline; the sync worker delivers it).",
        usage: ["CONV TEXT...", "CONV -- TEXT...", "CONV < file"],
        options: [],
        discussion: """
            The words of TEXT are joined with spaces; without TEXT the message is read from standard
            input (one trailing newline removed). A message is at most 4096 characters and 65536
            bytes of UTF-8; standard input is read no further than that, so a longer one is refused
            (exit 64) without being read whole. Text made only of white space is refused, as the
            server refuses it. Text that starts with a dash goes after --, which ends the options
            (a dash then a digit, like -1, is text already). Prints the message's client message ID, which stays
            the same on every delivery attempt. Never waits for the network or the sync worker's lock.

            Examples:
              chatdir send c1 on my way
              chatdir send c1 -- -x marks the spot
              fortune | chatdir send c1
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        let id = try context.conversationID(try arguments.positional(0, "CONV (the conversation to send to)"))
        var text: String
        if arguments.positionals.count > 1 {
            text = arguments.positionals.dropFirst().joined(separator: " ")
        } else {
            // At most the largest text, its newline and one byte more, however much is piped:
            // `yes | chatdir send c1` is refused in constant memory.
            let largest = DomainError.maxTextBytes
            let read: [UInt8]?
            do { read = try Output.readStandardInput(atMost: largest + 2) } catch {
                throw CommandFailure(message: "cannot read the message from standard input: \(error)", exitCode: 74)
            }
            guard let input = read else {
                throw context.usage("missing TEXT: give it as arguments or pipe it on standard input")
            }
            guard input.count - (input.last == UInt8(ascii: "\n") ? 1 : 0) <= largest else {
                throw context.usage(
                    "standard input holds more than \(largest) bytes; a message is at most \(largest) bytes of UTF-8 (\(DomainError.maxTextCharacters) characters)"
                )
            }
            guard let decoded = String(validating: input, as: UTF8.self) else {
                throw context.usage("standard input is not UTF-8 text")
            }
            text = decoded
            if text.hasSuffix("\n") { text.removeLast() }
        }
        do { try validateNewMessageText(text) } catch { throw context.usage(error.description) }
        let store = try context.openStore()
        let outbox = Outbox(try store.existingConversation(id))
        let entry: OutboxEntry
        do {
            entry = try outbox.enqueue(text)
        } catch let error {
            // A failed write leaves nothing queued (the file is removed again): say so, so the
            // user knows sending again makes no duplicate.
            guard case .system = error else { throw error }
            throw CommandFailure(message: "nothing was queued: \(error)", exitCode: error.exitCode)
        }
        if context.output.isTerminal {
            context.output.print("queued \(entry.clientMessageID) in \(id); it goes out with the next sync")
        } else {
            context.output.print(entry.clientMessageID.rawValue)
        }
        return 0
    }
}
