import ChatDomain
import ChatStore
import ChatSync
import ChatSystem

/// What every networked command needs: the store, the server's address and the token.
/// The token comes from `CHATDIR_TOKEN` or `--token-file` (which must not be readable by
/// others); it is never written into the store, never printed, never in an error message.
struct SyncSetup {
    static let options: [CommandSpec.Option] = [
        .init(name: "--server", value: "URL", help: "the server, like http://127.0.0.1:8080 (default: the store's, from `chatdir init --server`)"),
        .init(name: "--token-file", value: "FILE", help: "read the token from FILE (mode 0600); default: $CHATDIR_TOKEN"),
        .init(name: "--ca-file", value: "FILE", help: "also trust the PEM CA certificates in FILE for an https:// server; default: $CHATDIR_CA_FILE"),
    ]

    var store: Store
    var server: ServerAddress
    var token: String
    /// CA certificates trusted besides the system store for an `https://` server (`--ca-file`, `CHATDIR_CA_FILE`).
    var caFile: String?

    init(_ context: Context) throws {
        store = try context.openStore()
        guard let server = try context.arguments.value("--server").map({ text throws(UsageError) in try Self.serverAddress(text, context) }) ?? store.manifest.server else {
            // Not a usage error: the command line is fine, the store lacks a setting (EX_CONFIG).
            throw CommandFailure(message: "no server: pass --server URL, or create the store with `chatdir init --server URL`", exitCode: 78)
        }
        self.server = server
        caFile = try Self.caFile(context)
        token = try Self.token(context)
    }

    /// The engine's options for this server: the CA file trusted for TLS.
    var engineOptions: SyncEngine.Options {
        var options = SyncEngine.Options()
        options.caFile = caFile
        return options
    }

    /// `--ca-file FILE` or `CHATDIR_CA_FILE`: it must exist (66 otherwise); whether it holds
    /// certificates is for the TLS connection to say.
    static func caFile(_ context: Context) throws -> String? {
        let given = context.arguments.value("--ca-file") ?? context.environment["CHATDIR_CA_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        guard let file = given else { return nil }
        guard let kind = Sys.kind(of: file), kind != .directory else {
            throw CommandFailure(message: "\(file): no such CA file; pass --ca-file with the PEM certificate of the authority that signed the server's certificate", exitCode: 66)
        }
        return file
    }

    /// Parses a `--server` value: one parser for `init` and every networked command.
    static func serverAddress(_ text: String, _ context: Context) throws(UsageError) -> ServerAddress {
        do throws(ServerAddress.Invalid) {
            return try ServerAddress(text)
        } catch {
            throw context.usage("--server: \(error)")
        }
    }

    static func token(_ context: Context) throws -> String {
        if let file = context.arguments.value("--token-file") {
            guard let mode = Sys.mode(of: file) else { throw CommandFailure(message: "\(file): no such token file", exitCode: 66) }
            guard mode & 0o077 == 0 else {
                throw CommandFailure(message: "\(file) can be read by others (mode \(String(mode, radix: 8))); run `chmod 600 \(file)` first", exitCode: 77)
            }
            let bytes: [UInt8]
            do { bytes = try Sys.readFile(file) } catch { throw CommandFailure(message: error.description, exitCode: 77) }
            let text = String(decoding: bytes, as: UTF8.self).trimmingWhitespace()
            guard !text.isEmpty else { throw CommandFailure(message: "\(file) is empty; put the token in it", exitCode: 78) }
            if let problem = TokenProblem(text) { throw CommandFailure(message: "\(file): the token \(problem); put only the token in the file, on one line", exitCode: 78) }
            return text
        }
        if let token = context.environment["CHATDIR_TOKEN"]?.trimmingWhitespace(), !token.isEmpty {
            if let problem = TokenProblem(token) { throw CommandFailure(message: "CHATDIR_TOKEN \(problem); set it to the token alone", exitCode: 78) }
            return token
        }
        throw CommandFailure(message: "no token: set CHATDIR_TOKEN or pass --token-file FILE (mode 0600)", exitCode: 78)
    }
}
