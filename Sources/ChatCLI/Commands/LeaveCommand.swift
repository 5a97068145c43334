import ChatDomain
import ChatMatrix
import ChatStore
import ChatSync

/// `chatdir leave`: leaves a Matrix room, or declines an invitation to one. The conversation's
/// folder stays as it is: the history is the user's, in the store and in git.
enum LeaveCommand: Command {
    static let spec = CommandSpec(
        name: "leave",
        summary: "Leave a Matrix room, or decline an invitation to it.",
        usage: ["CONV [--server URL] [--token-file FILE]", "ROOM [--server URL] [--token-file FILE]"],
        options: SyncSetup.options,
        discussion: """
            CONV is a conversation of the store; ROOM a room ID (`!abc:example.org`), as `chatdir
            list` prints an invitation. Leaves the room on the homeserver, or declines the
            invitation, and prints "left ROOM" or "declined the invitation to ROOM".
            The conversation's folder and its history stay in the store as they are; nothing more
            of the room comes. Messages still queued for it are not sent: the next sync marks
            them failed with the homeserver's refusal, and `chatdir cancel --all-failed CONV`
            removes them. `chatdir join ROOM` joins again when the room lets you.
            Works while a sync worker runs on the store.
            Only for a Matrix store (exit 69 for a store of a chatdir server). Exit 66 when CONV
            is not in the store; 65 when the homeserver refuses (with its words) or CONV was
            started here and is not on the homeserver yet; otherwise as `chatdir sync`'s.

            Examples:
              chatdir leave '!abc:example.org'
              chatdir leave dinner
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let target = try arguments.positional(
            0, "CONV (a conversation of the store) or ROOM (a room ID like !abc:example.org)")
        let setup = try SyncSetup(context)
        let store = setup.store
        guard store.manifest.storeProtocol == .matrix else {
            throw CommandFailure(
                message:
                    "\(store.root) is a store of a chatdir server, which has no rooms to leave; leave is for Matrix stores",
                exitCode: 69)
        }
        let (room, folder) = try resolve(target, in: store, context)
        let queued = try folder.map { try store.conversation($0).outbox().filter { $0.state == .pending }.count } ?? 0
        let left = setup.matrixRequest { client async throws(SyncError) in try await client.leave(room) }
        switch left {
        case .success:
            break
        case .failure(let error as SyncError):
            return SyncSetup.requestFailed(error, command: "leave", about: room.rawValue, context.output)
        case .failure(let error):
            throw error
        }
        let output = context.output
        // `.invitations` is a hint the next listing rewrites whole; the room leaves it now, so
        // `list` stops offering to join what was just declined.
        let invitations = InvitationsFile.read(storeRoot: store.root)
        if invitations.contains(where: { $0.room == room.rawValue }) {
            try? InvitationsFile.write(invitations.filter { $0.room != room.rawValue }, storeRoot: store.root)
            output.print(output.safe("declined the invitation to \(room)"))
        } else if let folder {
            output.print(output.safe("left \(room); \(folder.rawValue) and its history stay in the store"))
        } else {
            output.print(output.safe("left \(room)"))
        }
        if queued > 0, let folder {
            output.error(
                output.safe(
                    "chatdir leave: \(queued) message\(plural(queued)) queued in \(folder.rawValue) will not be sent: the next sync marks \(queued == 1 ? "it" : "them") failed (`chatdir cancel --all-failed \(folder.rawValue)` then removes \(queued == 1 ? "it" : "them"))"
                ))
        }
        return 0
    }

    /// The room `target` names, and its conversation's folder when the store has one.
    private static func resolve(_ target: String, in store: Store, _ context: Context) throws
        -> (MatrixRoomID, ConversationID?)
    {
        if target.hasPrefix("#") {
            throw context.usage(
                "\(quoted(target)) is an alias, which names a room to join; leave takes the room's ID (!…) or its conversation"
            )
        }
        if target.hasPrefix("!") {
            let room: MatrixRoomID
            do { room = try MatrixRoomID(target) } catch { throw context.usage(error.description) }
            let id = ConversationID.matrixRoom(room.rawValue)
            return (room, store.conversation(id).exists ? id : nil)
        }
        let id = try context.conversationID(target)
        let conversation = try store.existingConversation(id)
        guard let text = try conversation.info()?.roomID else {
            throw CommandFailure(
                message:
                    "\(id) is not on the homeserver yet (`chatdir create` queued it, and no sync has made its room): there is no room to leave; `chatdir cancel` its messages instead",
                exitCode: 65)
        }
        do {
            return (try MatrixRoomID(text), id)
        } catch {
            throw CommandFailure(message: "\(id)/conversation.json: \(error)", exitCode: 65)
        }
    }
}
