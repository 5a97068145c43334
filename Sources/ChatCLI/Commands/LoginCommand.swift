import ChatDomain
import ChatMatrix
import ChatStore
import ChatSync

/// `chatdir login`: a Matrix store's access token from the user's password, saved where `sync`
/// finds it.
enum LoginCommand: Command {
    static let spec = CommandSpec(
        name: "login",
        summary: "Log a Matrix store in with a password and save its access token.",
        usage: ["[--server URL] [--ca-file FILE] [--password-file FILE]"],
        options: SyncSetup.options.filter { $0.name != "--token-file" } + [
            .init(
                name: "--password-file", value: "FILE",
                help:
                    "read the password from the first line of FILE (mode 0600); else a prompt on the terminal, else a line of standard input"
            )
        ],
        discussion: """
            Only for a Matrix store (made by `chatdir init --user @name:server`); a wire v1
            store's token comes from its chatdir server (exit 69). The password is asked on the
            terminal with echo off, or read from the first line of standard input when that is
            not a terminal; it is never an argument, never printed, never saved.

            The store logs in as one device, CHATDIR and 16 hex digits of SHA-256 of the store's
            absolute path: the same on every login from this store, so the homeserver still
            knows the messages sent before (a store moved elsewhere is a new device). The access
            token is saved, mode 0600, in $XDG_CONFIG_HOME/chatdir/tokens/DEVICE.token (else under
            ~/.config; the directory 0700), and the store's section of the config file gets
            `token-file` naming it, so `sync` needs no CHATDIR_TOKEN (which still comes first when
            set). A homeserver that gives refresh tokens gets asked for one: it is saved beside
            the token as DEVICE.refresh (0600), and when the homeserver refuses the token as
            expired, `sync` trades it for new ones and saves them (one process of the store at
            a time). A store whose section has `token-command` is refused (78): remove that line
            first. `chatdir logout` ends the session and removes both.

            Exit 77 when the homeserver refuses the password, 75 when it cannot be reached,
            78 without a server; nothing is saved then.

            Example:
              chatdir login --store ~/chats
              # Password for @alice:example.org:
              # logged in as @alice:example.org (device CHATDIR…); token saved in …
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        try context.arguments.expectAtMost(0)
        let account = try MatrixAccount(context, command: "login")
        let saved = account.saved
        if let entry = context.storeConfig?.entries["token-command"] {
            throw CommandFailure(
                message:
                    "\(context.config.place(entry.line)) gives this store its token with `token-command`; remove that line to let login save one",
                exitCode: 78)
        }
        let user = account.store.userID
        let password: String
        do {
            if let file = context.arguments.value("--password-file") {
                password = try PasswordInput.fromFile(file)
            } else {
                password = try PasswordInput.fromStandardInput(prompt: context.output.safe("Password for \(user): "))
            }
        } catch PasswordInput.Ending.interrupted {
            context.output.error("chatdir login: interrupted; nothing was saved")
            return 130
        }
        let client = MatrixClient(server: account.server, accessToken: nil, caFile: account.caFile)
        let deviceID = saved.deviceID
        let result = runUntilDone(interruptible: true) { () async -> Result<MatrixLogin, SyncError> in
            do throws(SyncError) {
                return .success(
                    try await client.login(
                        user: user.rawValue, password: password, deviceID: deviceID, deviceName: SavedLogin.deviceName,
                        refreshToken: true))
            } catch {
                return .failure(error)
            }
        }
        let login: MatrixLogin
        switch result {
        case .success(let answer):
            login = answer
        case .failure(let error):
            throw Self.refusal(error, server: account.server)
        }
        guard login.userID.rawValue == user.rawValue else {
            // A token of another account would have sync store someone else's rooms here.
            _ = runUntilDone(interruptible: true) { () async -> Bool in
                (try? await client.authenticated(login.accessToken).logout()) != nil
            }
            throw CommandFailure(
                message: context.output.safe(
                    "\(account.server) logged in \(login.userID), not this store's \(user); nothing was saved"),
                exitCode: 77)
        }
        try saved.saveRefreshToken(login.refreshToken)
        try saved.saveToken(login.accessToken)
        try saved.pointConfig(context.config, environment: context.environment)
        context.output.print(
            context.output.safe(
                "logged in as \(login.userID) (device \(login.deviceID)); token saved in \(saved.tokenFile)"))
        if let token = context.environment["CHATDIR_TOKEN"], !token.trimmingWhitespace().isEmpty {
            context.output.error(
                "chatdir login: note: CHATDIR_TOKEN is set, and sync uses it before the saved token; unset it")
        }
        return 0
    }

    /// Why the homeserver did not log in, with `sync`'s statuses: a refused password is 77
    /// with the homeserver's words (never the password), an unreachable server 75.
    static func refusal(_ error: SyncError, server: ServerAddress) -> CommandFailure {
        switch error {
        case .rejected(let status, let message) where status == 403 || status == 401:
            CommandFailure(message: "\(server) refused the login (\(status)): \(message)", exitCode: 77)
        case .unauthorized(let message):
            CommandFailure(message: "\(server) refused the login (401): \(message)", exitCode: 77)
        default:
            CommandFailure(message: "\(error)", exitCode: error.exitCode)
        }
    }
}

/// What `login` and `logout` share: a Matrix store (anything else refused, 69), its homeserver
/// (78 without one) and CA file, and where its login is kept.
struct MatrixAccount {
    var store: Store
    var server: ServerAddress
    var caFile: String?
    var saved: SavedLogin

    init(_ context: Context, command: String) throws {
        store = try context.openStore()
        guard store.manifest.storeProtocol == .matrix else {
            throw CommandFailure(
                message: context.output.safe(
                    "\(command) is for Matrix stores; \(store.root) is \(store.userID)'s wire v1 store, whose token comes from its chatdir server: give it with CHATDIR_TOKEN, --token-file FILE, or the config's `token-file` or `token-command`"
                ),
                exitCode: 69)
        }
        guard let server = try SyncSetup.server(context, manifest: store.manifest) else {
            throw CommandFailure(
                message:
                    "no server: pass --server URL, or set the store's with `chatdir config set server URL`",
                exitCode: 78)
        }
        self.server = server.value
        caFile = try SyncSetup.caFile(context)
        saved = try SavedLogin(store: store, environment: context.environment)
    }
}
