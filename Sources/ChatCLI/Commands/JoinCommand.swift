import ChatDomain
import ChatMatrix
import ChatStore
import ChatSync

/// `chatdir join`: accepts an invitation to a Matrix room (or joins a room by its alias), then
/// syncs, so the room's folder and messages are there when it returns.
enum JoinCommand: Command {
    static let spec = CommandSpec(
        name: "join",
        summary: "Join a Matrix room: accept an invitation, or join by alias.",
        usage: ["ROOM [--server URL] [--token-file FILE]"],
        options: SyncSetup.options,
        discussion: """
            ROOM is a room ID (`!abc:example.org`, as `chatdir sync` prints an invitation) or an
            alias (`#lobby:example.org`). Joins it as the store's user, then syncs once, like
            `chatdir sync`, and prints the room's conversation folder and the sync's summary.
            While a sync worker runs on the store (`sync --live`), it only joins: the worker
            brings the room's messages.
            Only for a Matrix store (exit 69 for a store of a chatdir server). Exit status as
            `chatdir sync`'s; the homeserver refusing the join (no invitation, a banned user, an
            unknown alias) is 65 with its words.
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let room = try arguments.positional(
            0, "ROOM (a room ID like !abc:example.org, or an alias like #lobby:example.org)")
        guard let first = room.first, first == "!" || first == "#" else {
            throw context.usage("\(quoted(room)) is not a room ID (!…) or an alias (#…)")
        }
        let setup = try SyncSetup(context)
        guard setup.store.manifest.storeProtocol == .matrix else {
            throw CommandFailure(
                message:
                    "\(setup.store.root) is a store of a chatdir server, which has no rooms to join; join is for Matrix stores",
                exitCode: 69)
        }
        let output = context.output
        let engine: SyncEngine
        do {
            engine = try setup.engine()
        } catch StoreError.locked(_, let holder) {
            return try joinBeside(worker: holder, room: room, setup: setup, context)
        }
        let joined = runUntilDone(interruptible: false) {
            () async -> Result<(ConversationID, SyncEngine.Report), any Error> in
            do {
                let id = try await engine.join(room)
                let report = await engine.syncOnceRenewingToken { line in output.error("chatdir join: " + line) }
                return .success((id, report))
            } catch {
                return .failure(error)
            }
        }
        switch joined {
        case .success(let (id, report)):
            for failure in report.failed { output.error("chatdir join: rejected: \(failure)") }
            for problem in report.problems { output.error("chatdir join: \(problem)") }
            output.print(output.safe("joined \(room) as \(id.rawValue); \(report.summary)"))
            return report.exitCode
        case .failure(let error as SyncError):
            return SyncSetup.requestFailed(error, command: "join", about: room, output)
        case .failure(let error):
            output.error(output.safe("chatdir join: \(room): \(error)"))
            return 74
        }
    }

    /// Joins `room` while a sync worker (`holder`, as the lock names it) holds the store: the
    /// join is one request (``SyncSetup/matrixRequest(_:)``), and the worker's live `/sync`
    /// sees the room and syncs it.
    private static func joinBeside(worker holder: String?, room: String, setup: SyncSetup, _ context: Context)
        throws -> Int32
    {
        let joined = setup.matrixRequest { client async throws(SyncError) in try await client.join(room) }
        switch joined {
        case .success(let joined):
            let id = ConversationID.matrixRoom(joined.rawValue)
            let worker = holder.map { "the running sync worker (\($0))" } ?? "the running sync worker"
            context.output.print(context.output.safe("joined \(room) as \(id.rawValue); \(worker) brings its messages"))
            return 0
        case .failure(let error as SyncError):
            return SyncSetup.requestFailed(error, command: "join", about: room, context.output)
        case .failure(let error):
            throw error
        }
    }
}
