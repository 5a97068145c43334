import ChatDomain
import ChatSync

/// `chatdir logout`: ends the session `chatdir login` started for a Matrix store and forgets
/// its token.
enum LogoutCommand: Command {
    static let spec = CommandSpec(
        name: "logout",
        summary: "End a Matrix store's session on its homeserver and remove the saved token.",
        usage: ["[--server URL] [--ca-file FILE]"],
        options: SyncSetup.options.filter { $0.name != "--token-file" },
        discussion: """
            Ends the session of the store's device on the homeserver (the token `chatdir login`
            saved stops working there), then removes the token file and the config's
            `token-file` line when it names that file. A token the homeserver had already ended
            (401) is removed all the same. When the homeserver cannot be reached (75), nothing
            is removed: run logout again later. Without a saved token there is nothing to do
            (exit 0). Only for a Matrix store (exit 69).
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        try context.arguments.expectAtMost(0)
        let account = try MatrixAccount(context, command: "logout")
        let saved = account.saved
        guard let token = try saved.savedToken(context.environment) else {
            let unpointed = try saved.unpointConfig(context.config, environment: context.environment)
            let also = unpointed ? "; removed the config's token-file line that named it" : ""
            context.output.print(
                context.output.safe("not logged in from this store: no token in \(saved.tokenFile)\(also)"))
            return 0
        }
        let client = MatrixClient(server: account.server, accessToken: token, caFile: account.caFile)
        let result = runUntilDone(interruptible: true) { () async -> SyncError? in
            do throws(SyncError) {
                try await client.logout()
                return nil
            } catch {
                return error
            }
        }
        let ended: String
        switch result {
        case nil:
            ended = "ended the session of device \(saved.deviceID) on \(account.server)"
        case .unauthorized?:
            ended = "\(account.server) had already ended the session of device \(saved.deviceID)"
        case let error?:
            throw CommandFailure(
                message: "\(error); the token stays in \(saved.tokenFile): run logout again", exitCode: error.exitCode)
        }
        try saved.removeToken()
        let unpointed = try saved.unpointConfig(context.config, environment: context.environment)
        let config = unpointed ? " and the token-file line from \(context.config.path)" : ""
        context.output.print(
            context.output.safe("logged out: \(ended); removed \(saved.tokenFile)\(config)"))
        return 0
    }
}
