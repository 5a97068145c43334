import ChatDomain
import ChatStore
import ChatSync
import ChatSystem

/// What every networked command needs: the store, the server's address and the token.
/// Each setting is taken from the first of: a flag, the environment, the store's section of
/// the config file, the store's manifest (the server only). The token is never written into
/// the store, never printed, never in an error message.
struct SyncSetup {
    static let options: [CommandSpec.Option] = [
        .init(
            name: "--server", value: "URL",
            help:
                "the server, like http://127.0.0.1:8080; else $CHATDIR_SERVER, else the config's `server`, else the store's (`chatdir init --server`)"
        ),
        .init(
            name: "--token-file", value: "FILE",
            help:
                "read the token from FILE (mode 0600); else $CHATDIR_TOKEN, else the config's `token-file` or `token-command`"
        ),
        .init(
            name: "--ca-file", value: "FILE",
            help:
                "also trust the PEM CA certificates in FILE for an https:// server; else $CHATDIR_CA_FILE, else the config's `ca-file`"
        ),
    ]

    var store: Store
    var server: ServerAddress
    var token: String
    /// Where the token came from; asked again after a 401 when it can give another one.
    var tokenSource: TokenSource
    /// CA certificates trusted besides the system store for an `https://` server.
    var caFile: String?
    private let environment: Environment

    init(_ context: Context) throws {
        store = try context.openStore()
        guard let server = try Self.server(context, manifest: store.manifest) else {
            // Not a usage error: the command line is fine, the store lacks a setting (EX_CONFIG).
            throw CommandFailure(
                message:
                    "no server: pass --server URL, or create the store with `chatdir init --server URL` (`chatdir config set server URL` for an existing one)",
                exitCode: 78)
        }
        self.server = server.value
        caFile = try Self.caFile(context)
        guard let source = Self.tokenSource(context) else {
            throw CommandFailure(
                message:
                    "no token: set CHATDIR_TOKEN or pass --token-file FILE (mode 0600), or give the store `token-file` or `token-command` in \(context.config.path.isEmpty ? ConfigFile.location(context.environment) : context.config.path)",
                exitCode: 78)
        }
        tokenSource = source.value
        environment = context.environment
        token = try source.value.fetch(context.environment)
    }

    /// The engine for this setup: the CA file trusted for TLS, and a token that is fetched
    /// again after a 401 when its source can give a new one.
    func engine() throws -> SyncEngine {
        var options = SyncEngine.Options()
        options.caFile = caFile
        options.reconnectBackoff = try Self.reconnectBackoff(environment)
        if let history = try Self.firstSyncHistory(environment) { options.firstSyncHistory = history }
        let provider: (@Sendable () async throws -> String)?
        if let refresher = matrixTokenRefresher() {
            provider = { try await refresher.renew() }
        } else if tokenSource.renews {
            let source = tokenSource
            let environment = environment
            provider = { try await source.fetchOffPool(environment) }
        } else {
            provider = nil
        }
        return try SyncEngine(store: store, server: server, token: token, tokenProvider: provider, options: options)
    }

    /// The renewal of a saved Matrix login with a refresh token (``MatrixTokenRefresher``);
    /// nil for any other token.
    func matrixTokenRefresher() -> MatrixTokenRefresher? {
        MatrixTokenRefresher(
            store: store, source: tokenSource, token: token, server: server, caFile: caFile, environment: environment)
    }

    /// One Matrix request with this setup's server, CA file and token, made without the sync
    /// engine (so also while a sync worker holds the store): a token the homeserver refuses is
    /// renewed once when the saved login can be (``MatrixTokenRefresher``, the worker's own
    /// renewal lock), and the request made again with the new one. Ctrl-C ends the wait.
    func matrixRequest<T: Sendable>(
        _ request: @escaping @Sendable (MatrixClient) async throws(SyncError) -> T
    ) -> Result<T, any Error> {
        let refresher = matrixTokenRefresher()
        let (server, caFile, token) = (server, caFile, token)
        return runUntilDone(interruptible: true) { () async -> Result<T, any Error> in
            var token = token
            for attempt in 1...2 {
                do throws(SyncError) {
                    return .success(try await request(MatrixClient(server: server, accessToken: token, caFile: caFile)))
                } catch {
                    guard case .unauthorized = error, attempt == 1, let refresher else { return .failure(error) }
                    do { token = try await refresher.renew() } catch { return .failure(error) }
                }
            }
            return .failure(SyncError.unauthorized("the renewed token was refused too"))
        }
    }

    /// `chatdir COMMAND`'s request about `room` (``matrixRequest(_:)``, or the engine's) failed:
    /// says so, and returns the exit status: the homeserver's refusal is 65, with its words; any
    /// other failure exits as a one-request command does (``SyncError/exitCode``).
    static func requestFailed(_ error: SyncError, command: String, about room: String, _ output: Output) -> Int32 {
        output.error(output.safe("chatdir \(command): \(room): \(error)"))
        if case .rejected = error { return 65 }
        return error.exitCode
    }

    /// `CHATDIR_RECONNECT_BACKOFF=FIRST,LONGEST`: how long `sync --live` waits before dialling
    /// again after its connection ended, in seconds (from half to all of FIRST, doubling up to
    /// LONGEST); nil when unset (0.5 and 30).
    static func reconnectBackoff(_ environment: Environment) throws -> Backoff? {
        guard let text = environment["CHATDIR_RECONNECT_BACKOFF"], !text.isEmpty else { return nil }
        let seconds = text.split(separator: ",", omittingEmptySubsequences: false).map {
            Double(String($0).trimmingWhitespace())
        }
        guard seconds.count == 2, let first = seconds[0], let longest = seconds[1], first > 0, first <= longest,
            longest <= 86_400
        else {
            throw CommandFailure(
                message:
                    "CHATDIR_RECONNECT_BACKOFF: \(quoted(text)) is not valid; expected the first and the longest wait in seconds, like 0.5,30 (at most 86400)",
                exitCode: 78)
        }
        return Backoff(initial: .seconds(first), maximum: .seconds(longest))
    }

    /// `CHATDIR_FIRST_SYNC_HISTORY=N`: in a Matrix store, how many messages older than a room's
    /// anchor the syncs bring (0: none); nil when unset (10,000).
    static func firstSyncHistory(_ environment: Environment) throws -> Int? {
        guard let text = environment["CHATDIR_FIRST_SYNC_HISTORY"], !text.isEmpty else { return nil }
        guard let count = Int(text.trimmingWhitespace()), (0...Self.mostFirstSyncHistory).contains(count) else {
            throw CommandFailure(
                message:
                    "CHATDIR_FIRST_SYNC_HISTORY: \(quoted(text)) is not valid; expected a number of messages from 0 to \(Self.mostFirstSyncHistory), like 10000",
                exitCode: 78)
        }
        return count
    }

    /// The largest `CHATDIR_FIRST_SYNC_HISTORY`: more than a million older messages a room is
    /// `chatdir history`'s work, not every pass's.
    static let mostFirstSyncHistory = 1_000_000

    /// `--server`, `CHATDIR_SERVER`, the config's `server`, the manifest's; nil when none is set.
    static func server(_ context: Context, manifest: Manifest?) throws -> Setting<ServerAddress>? {
        if let text = context.arguments.value("--server") {
            return Setting(value: try serverAddress(text, context), origin: .flag("--server"))
        }
        if let text = context.environment["CHATDIR_SERVER"], !text.isEmpty {
            do throws(ServerAddress.Invalid) {
                return Setting(value: try ServerAddress(text), origin: .environment("CHATDIR_SERVER"))
            } catch {
                throw CommandFailure(message: "CHATDIR_SERVER: \(error)", exitCode: 78)
            }
        }
        if let entry = context.storeConfig?.entries["server"], let address = try? ServerAddress(entry.value) {
            return Setting(value: address, origin: .config(context.config.place(entry.line)))
        }
        return manifest?.server.map { Setting(value: $0, origin: .manifest) }
    }

    /// `--token-file`, `CHATDIR_TOKEN`, the config's `token-file` or `token-command`; nil when none.
    static func tokenSource(_ context: Context) -> Setting<TokenSource>? {
        if let file = context.arguments.value("--token-file") {
            return Setting(value: .file(file), origin: .flag("--token-file"))
        }
        if let token = context.environment["CHATDIR_TOKEN"], !token.trimmingWhitespace().isEmpty {
            return Setting(value: .environment, origin: .environment("CHATDIR_TOKEN"))
        }
        guard let section = context.storeConfig else { return nil }
        if let entry = section.entries["token-file"] {
            return Setting(value: .file(entry.value), origin: .config(context.config.place(entry.line)))
        }
        if let entry = section.entries["token-command"] {
            return Setting(value: .command(entry.value), origin: .config(context.config.place(entry.line)))
        }
        return nil
    }

    /// `--ca-file`, `CHATDIR_CA_FILE`, the config's `ca-file`; nil when none.
    static func caFileSetting(_ context: Context) -> Setting<String>? {
        if let file = context.arguments.value("--ca-file") { return Setting(value: file, origin: .flag("--ca-file")) }
        if let file = context.environment["CHATDIR_CA_FILE"], !file.isEmpty {
            return Setting(value: file, origin: .environment("CHATDIR_CA_FILE"))
        }
        if let entry = context.storeConfig?.entries["ca-file"] {
            return Setting(value: entry.value, origin: .config(context.config.place(entry.line)))
        }
        return nil
    }

    /// ``caFileSetting(_:)``, which must exist (66 otherwise); whether it holds certificates is
    /// for the TLS connection to say.
    static func caFile(_ context: Context) throws -> String? {
        guard let file = caFileSetting(context)?.value else { return nil }
        guard let kind = Sys.kind(of: file), kind != .directory else {
            throw CommandFailure(
                message:
                    "\(file): no such CA file; pass --ca-file with the PEM certificate of the authority that signed the server's certificate",
                exitCode: 66)
        }
        return file
    }

    /// Parses a `--server` value: one parser for `init`, `config set server` and every networked command.
    static func serverAddress(_ text: String, _ context: Context) throws(UsageError) -> ServerAddress {
        do throws(ServerAddress.Invalid) {
            return try ServerAddress(text)
        } catch {
            throw context.usage("--server: \(error)")
        }
    }
}
