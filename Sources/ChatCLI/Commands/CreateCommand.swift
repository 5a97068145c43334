import ChatDomain
import ChatProtocol
import ChatStore

/// `chatdir create`: starts a conversation here, offline; the sync worker creates it on the server.
enum CreateCommand: Command {
    static let spec = CommandSpec(
        name: "create",
        summary: "Start a conversation (works offline; the sync worker creates it on the server).",
        usage: ["ID --title TITLE --member USER [--member USER...]", "ID --retry"],
        options: [
            .init(
                name: "--title", value: "TITLE",
                help: "the conversation's title, one line of at most 200 characters (required)"),
            .init(name: "--member", value: "USER", help: "a member besides you; repeat it for each (at least one)"),
            .init(name: "--retry", value: nil, help: "queue a creation the server refused again, for the next sync"),
        ],
        discussion: """
            ID is the new conversation's ID: letters, digits, '.', '_' and '-', at most 64. The
            conversation is there at once, with you among its members, so `send ID` works before
            the server knows it; its creation waits in outbox/create.json and the next sync posts it
            before any of its messages. If the server cannot start conversations (it answers 404 or
            405), or the ID is taken there by another conversation, the creation is marked failed,
            `sync` exits 65 and the conversation's messages stay pending; nothing else is affected.
            `create ID --retry` queues it again (once the server has the endpoint, or the ID is free).
            Members are user IDs of the store's kind.

            In a Matrix store members are Matrix user IDs, and the next sync creates a private
            room named TITLE that invites them. Once the homeserver has the room, the folder ID is
            renamed to the room's folder (the name every device of the account gives it), its
            queued messages with it; `sync` prints `started ID as FOLDER`, and from then on the
            conversation is FOLDER. A creation whose answer was lost is found again on the
            homeserver, never made twice. A refused creation (a 403 from the homeserver) is
            marked failed as above.

            Example:
              chatdir create dinner --title 'Dinner on Friday' --member bob --member carol
              chatdir send dinner who brings dessert?
              chatdir sync
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let id = try context.conversationID(try arguments.positional(0, "ID (the new conversation's ID)"))
        if arguments.flag("--retry") { return try retry(id, context) }
        guard let title = arguments.value("--title") else { throw context.usage("missing --title TITLE") }
        if let problem = NewConversation.problem(withTitle: title) { throw context.usage("--title: \(problem)") }
        let texts = arguments.allValues("--member")
        guard !texts.isEmpty else { throw context.usage("missing --member USER: name at least one other member") }
        var members: [UserID] = []
        for text in texts {
            do { members.append(try UserID(text)) } catch { throw context.usage("--member: \(error)") }
        }
        guard members.count < NewConversation.maxMembers else {
            throw context.usage(
                "\(members.count) members; a conversation has at most \(NewConversation.maxMembers), you among them")
        }
        let store = try context.openStore()
        for member in members {
            if let problem = store.manifest.storeProtocol.userIDProblem(member) {
                throw context.usage("--member: \(problem)")
            }
        }
        let creation: QueuedCreation
        do {
            creation = try store.startConversation(id, title: title, members: members)
        } catch {
            if case .alreadyExists = error {
                throw CommandFailure(
                    message:
                        "conversation \(quoted(id.rawValue)) exists in this store already; pick another ID (`\(context.hint.command("list", ""))` shows the ones there are)",
                    exitCode: error.exitCode)
            }
            guard case .system = error else { throw error }
            throw CommandFailure(message: "nothing was started: \(error)", exitCode: error.exitCode)
        }
        if context.output.isTerminal {
            let others = creation.members.filter { $0 != store.userID }.map(\.rawValue).joined(separator: ", ")
            // A Matrix room's folder is named after the room ID, which only the homeserver gives.
            let renamed =
                store.manifest.storeProtocol == .matrix
                ? "; once the homeserver has the room, the folder is renamed to the room's (sync prints the new name)"
                : ""
            context.output.print(
                context.output.safe(
                    "started \(id) with \(others); the next sync creates it on the server (send to it now: \(context.hint.command("send", "\(id.rawValue) TEXT")))\(renamed)"
                ))
        } else {
            context.output.print(id.rawValue)
        }
        return 0
    }

    /// `create ID --retry`: a refused creation pending again.
    private static func retry(_ id: ConversationID, _ context: Context) throws -> Int32 {
        if context.arguments.value("--title") != nil || !context.arguments.allValues("--member").isEmpty {
            throw context.usage("--retry takes no --title or --member: it queues the creation as it was")
        }
        let store = try context.openStore()
        let requeued: Bool
        do {
            requeued = try store.existingConversation(id).requeueCreation()
        } catch {
            guard case .unknownConversation = error, store.conversation(id).exists else { throw error }
            throw CommandFailure(
                message:
                    "\(id) has no creation waiting: the server has it already, or it came from the server; nothing to retry",
                exitCode: 66)
        }
        if requeued {
            context.output.print(
                context.output.safe("queued the creation of \(id) again; it goes out with the next sync"))
        } else {
            context.output.error("chatdir create: the creation of \(id) is already queued (pending); nothing to do")
        }
        return 0
    }
}
