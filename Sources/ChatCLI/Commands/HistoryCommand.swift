import ChatDomain
import ChatStore
import ChatSync

/// `chatdir history`: fetches older messages, so `view --before` can show them offline.
enum HistoryCommand: Command {
    /// Why a history fetch stopped: the server's side, or the store's (which says what to do).
    enum HistoryFailure: Error {
        case server(SyncError)
        case store(StoreError)
        /// SIGINT or SIGTERM while a request or its retry wait was under way.
        case interrupted
    }

    static let spec = CommandSpec(
        name: "history",
        summary: "Fetch older messages of a conversation from the server.",
        usage: ["CONV [--pages N] [--server URL] [--token-file FILE]"],
        options: [
            .init(name: "--pages", value: "N", help: "fetch at most N pages of 500 (default: until the beginning)"),
            .init(name: "--quiet", value: nil, help: "no progress line on a terminal (there is none in a pipe)"),
        ] + SyncSetup.options,
        discussion: """
            Pages backwards from the oldest stored message (`?before=`) until the server has no more.
            Needs the store's lock, like `chatdir sync`. Afterwards `chatdir view CONV --before SEQ`
            scrolls back through them without the network. Ctrl-C or SIGTERM stops it with exit 130;
            the pages saved before then stay. In a Matrix store the pages come from the room's
            `/messages`, numbered down from the oldest stored message.
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        let id = try context.conversationID(try arguments.positional(0, "CONV (the conversation to fetch)"))
        let pages = try arguments.integer("--pages", in: 1...1_000_000)
        let setup = try SyncSetup(context)
        let engine = try setup.engine()
        let progress = ProgressLine(output: context.output, quiet: arguments.flag("--quiet"))
        let result = runUntilDone(interruptible: true) { () async -> Result<Int, HistoryFailure> in
            await engine.setProgress { progress.update(ProgressLine.Reading($0)) }
            do {
                return .success(try await engine.history(id, pages: pages))
            } catch  where Task.isCancelled {
                // Stopped by the user: whatever the interrupted request or wait threw.
                return .failure(.interrupted)
            } catch let error as SyncError {
                return .failure(.server(error))
            } catch let error as StoreError {
                return .failure(.store(error))
            } catch {
                return .failure(.server(.contract("\(error)")))
            }
        }
        progress.finish()
        switch result {
        case .success(let count):
            context.output.print("fetched \(count) older message\(count == 1 ? "" : "s") of \(id)")
            return 0
        case .failure(.server(let error)):
            context.output.error("chatdir history: \(error)")
            return error.exitCode
        case .failure(.interrupted):
            // Every page saved before the signal stays saved; nothing is half-written.
            context.output.error("chatdir history: interrupted; the pages fetched before it are stored")
            return 130
        case .failure(.store(let error)):
            // The store's own failure (a full disk): its words name the file and the remedy, and
            // its status is every command's for a failed write (74), not the server's fault (76).
            context.output.error("chatdir history: \(error)")
            return error.exitCode
        }
    }
}
