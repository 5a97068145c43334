import ChatDomain
import ChatStore
import ChatSync

/// `chatdir init`: creates an empty store for one user.
enum InitCommand: Command {
    static let spec = CommandSpec(
        name: "init",
        summary: "Create a store for a user.",
        usage: ["--user NAME [--server URL] [--segment-size N] [DIR]"],
        options: [
            .init(
                name: "--user", value: "NAME",
                help:
                    "whose chats these are (required): a name like alice, or a Matrix user ID like @alice:example.org for a Matrix store"
            ),
            .init(
                name: "--server", value: "URL",
                help: "the server to sync with, like http://127.0.0.1:8080 or https://chat.example (never a token)"),
            .init(
                name: "--segment-size", value: "N",
                help: "messages per segment file, fixed for the store's life (default 100)"),
            .init(
                name: "--ca-file", value: "FILE",
                help:
                    "also trust the PEM CA certificates in FILE when finding a Matrix homeserver over https; else $CHATDIR_CA_FILE"
            ),
        ],
        discussion: """
            DIR defaults to the --store path. It must not exist or be empty. The new store holds
            .gitignore and .gitattributes, ready for git; in a git repository, run
            `chatdir git-setup` once to register the merge driver and the hooks that keep modes
            (chatdir-store(5), "Keeping a store in git").

            A Matrix user ID makes a Matrix store (chatdir-store(5), "Matrix stores"). Without
            --server, its homeserver is found as Matrix clients find it: from
            https://SERVER-NAME/.well-known/matrix/client of the user ID's server name (the server
            name itself when there is none), and written into the store. `chatdir login` then gets
            and saves its access token; `create` there starts a room (`chatdir create --help`).

            Example:
              chatdir init --store ~/chats --user alice --server http://127.0.0.1:8080
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(1)
        guard let userText = arguments.value("--user") else { throw context.usage("missing --user NAME") }
        let user: UserID
        do { user = try UserID(userText) } catch { throw context.usage("--user: \(error)") }
        // Parsed as `sync` parses it, so the store never holds a URL sync would refuse.
        var server = try arguments.value("--server").map { text throws(UsageError) in
            try SyncSetup.serverAddress(text, context)
        }
        if user.isMatrix, server == nil {
            server = try Self.discover(user, context)
        }
        let size =
            try arguments.integer("--segment-size", in: 1...Manifest.maxSegmentSize) ?? StoreLayout.defaultSegmentSize
        let path = arguments.positionals.first ?? context.storePath
        let store: Store
        do {
            store = try Store.create(at: path, manifest: Manifest(userID: user, server: server, segmentSize: size))
        } catch {
            guard case .alreadyExists = error else { throw error }
            throw CommandFailure(message: context.output.safe(Self.taken(path)), exitCode: error.exitCode)
        }
        // After the store is whole: a crash between leaves a store without them, which
        // `chatdir git-setup` completes.
        try StoreGitFiles.install(in: store.root)
        guard context.output.isTerminal else {
            context.output.print(store.root)
            return 0
        }
        // On a terminal: what happened and the command that comes next, ready to paste.
        let hint = store.root == context.defaultStorePath ? PasteHint.defaultStore : PasteHint(store: store.root)
        if user.isMatrix {
            // The homeserver gives the token for a password: login saves it where sync looks.
            context.output.print(
                context.output.safe(
                    "created \(user)'s Matrix store in \(store.root); next: \(hint.command("login", "")), then \(hint.command("sync", ""))"
                ))
            return 0
        }
        let next = hint.command("sync", server == nil ? "--server URL" : "")
        context.output.print(
            context.output.safe("created \(user)'s store in \(store.root); next: \(next) (with CHATDIR_TOKEN set)"))
        return 0
    }

    /// The homeserver of Matrix user `user`, by server discovery; a failure says what was
    /// asked and how to go on without it (`--server`), with the failure's exit status.
    static func discover(_ user: UserID, _ context: Context) throws -> ServerAddress {
        let caFile = try SyncSetup.caFile(context)
        let found = runUntilDone(interruptible: true) { () async -> Result<ServerAddress, SyncError> in
            do throws(SyncError) {
                return .success(try await MatrixClient.discover(userID: user, caFile: caFile))
            } catch {
                return .failure(error)
            }
        }
        switch found {
        case .success(let address):
            return address
        case .failure(let error):
            throw CommandFailure(
                message: context.output.safe(
                    "could not find \(user)'s homeserver: \(error); pass its URL with --server, like --server https://matrix.example.org"
                ), exitCode: error.exitCode)
        }
    }

    /// Why `init` left `path` alone and what to do instead. A store there holds someone's chats:
    /// the way out is to use it or pick another directory, never to remove it.
    static func taken(_ path: String) -> String {
        if let existing = try? Store.open(at: path) {
            return "\(path) is already \(existing.userID)'s chatdir store, left as it is; use it with --store \(path) "
                + "(`chatdir config --store \(path)` shows its settings), or give init a new directory"
        }
        return "\(path) already exists and is not empty, so it is left as it is; give init a new or empty directory"
    }
}
