import ChatDomain
import ChatStore
import ChatSync

/// `chatdir history`: fetches older messages, so `view --before` can show them offline.
enum HistoryCommand: Command {
    static let spec = CommandSpec(
        name: "history",
        summary: "Fetch older messages of a conversation from the server.",
        usage: ["CONV [--pages N] [--server URL] [--token-file FILE]"],
        options: [
            .init(name: "--pages", value: "N", help: "fetch at most N pages of 500 (default: until the beginning)"),
        ] + SyncSetup.options,
        discussion: """
        Pages backwards from the oldest stored message (`?before=`) until the server has no more.
        Needs the store's lock, like `chatdir sync`. Afterwards `chatdir view CONV --before SEQ`
        scrolls back through them without the network.
        """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let id = try context.conversationID(try arguments.positional(0, "CONV (the conversation to fetch)"))
        let pages = try arguments.integer("--pages", in: 1...1_000_000)
        let setup = try SyncSetup(context)
        let engine = try SyncEngine(store: setup.store, server: setup.server, token: setup.token, options: setup.engineOptions)
        let result = runUntilDone(interruptible: true) { () async -> Result<Int, SyncError> in
            do {
                return .success(try await engine.history(id, pages: pages))
            } catch let error as SyncError {
                return .failure(error)
            } catch {
                return .failure(.contract("\(error)"))
            }
        }
        switch result {
        case let .success(count):
            context.output.print("fetched \(count) older message\(count == 1 ? "" : "s") of \(id)")
            return 0
        case let .failure(error):
            context.output.error("chatdir history: \(error)")
            return error.exitCode
        }
    }
}
