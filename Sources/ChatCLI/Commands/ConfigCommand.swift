import ChatDomain
import ChatStore

/// `chatdir config`: the effective settings and where each came from; `config set server URL`
/// points a store at another server.
enum ConfigCommand: Command {
    static let spec = CommandSpec(
        name: "config",
        summary: "Show the effective settings and where each comes from, or change a store's server.",
        usage: ["[--json] [--server URL] [--token-file FILE] [--ca-file FILE]", "set server URL"],
        options: [
            .init(
                name: "--json", value: nil,
                help:
                    "one JSON object: each setting's value, `from` (flag, environment, config, manifest, default) and `where`"
            )
        ] + SyncSetup.options,
        discussion: """
            Each setting is the first of: a flag, the environment, the config file, the store's
            manifest (chatdir.json, the server only), the default. The token is never shown, only
            where it comes from; a token-command is not run. A Matrix store (made by `chatdir init
            --user @name:server`) shows its protocol on a line of its own.

            The config file is $XDG_CONFIG_HOME/chatdir/config (else ~/.config/chatdir/config):
            `key = value` lines and `#` comments on lines of their own. Above the first section,
            `store = DIR` is the store used without --store or $CHATDIR_STORE. A `[store DIR]`
            section holds one store's `token-file = FILE` (mode 0600), or `token-command = COMMAND`
            (run with /bin/sh -c; its first line of output is the token; run again after a 401;
            stopped after 60 s), `ca-file = FILE` and `server = URL`. Paths are absolute or start
            with ~/. A `token` key is refused: tokens never live in the config. For a Matrix store,
            `chatdir login` writes the `token-file` line (and `chatdir logout` removes it).

            `config set server URL` rewrites the store's chatdir.json (the URL rule of init and sync);
            stop a running `sync --live` first, it holds the store.

            Example:
              # ~/.config/chatdir/config
              store = ~/chats/work
              [store ~/chats/work]
              token-command = pass show chat/alice

              chatdir config
              chatdir config set server https://chat.example --store ~/chats/work
            """
    )

    static func run(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        if let first = arguments.positionals.first {
            guard first == "set" else {
                throw context.usage(
                    "unknown subcommand \(quoted(first)); `chatdir config` shows the settings, `chatdir config set server URL` changes one"
                )
            }
            return try set(context)
        }
        let store = try? context.openStore()
        let storeSetting = context.store
        let server = try SyncSetup.server(context, manifest: store?.manifest)
        var settings: [Row] = [
            Row("store", storeSetting.value + (store == nil ? " (no store there yet)" : ""), storeSetting.origin),
            Row("user", store?.userID.rawValue, store == nil ? nil : .manifest),
            Row("server", server) { $0.description },
            Row("token", SyncSetup.tokenSource(context)) { $0.description },
            Row("ca-file", SyncSetup.caFileSetting(context)) { $0 },
        ]
        // Named only for a Matrix store: wire v1 is every store made before, and what a store
        // without a "protocol" line is.
        if let manifest = store?.manifest, manifest.storeProtocol != .wire {
            settings.insert(Row("protocol", manifest.storeProtocol.description, .manifest), at: 2)
        }
        let config = context.config
        if arguments.flag("--json") {
            var members: [(key: String, value: JSONValue)] = [
                ("configFile", .object([("path", .string(config.path)), ("exists", .bool(config.exists))]))
            ]
            for row in settings {
                var entry: [(key: String, value: JSONValue)] = [
                    ("value", row.value.map(JSONValue.string) ?? .null), ("from", .string(row.origin?.kind ?? "none")),
                ]
                if let place = row.origin?.place { entry.append(("where", .string(place))) }
                members.append((row.name == "ca-file" ? "caFile" : row.name, .object(entry)))
            }
            context.output.print(JSONLine.encode(.object(members)))
            return 0
        }
        var lines = ["config file  \(config.path)\(config.exists ? "" : " (none there)")"]
        for row in settings {
            let name = row.name + String(repeating: " ", count: 11 - row.name.count)
            if let value = row.value, let origin = row.origin {
                lines.append("\(name)  \(value)  (\(origin.description))")
            } else {
                lines.append("\(name)  none")
            }
        }
        for line in lines { context.output.print(context.output.safe(line)) }
        return 0
    }

    /// One line of the output: a setting's value in words and where it came from (nil: not set).
    private struct Row {
        var name: String
        var value: String?
        var origin: SettingOrigin?

        init(_ name: String, _ value: String?, _ origin: SettingOrigin?) {
            self.name = name
            self.value = value
            self.origin = value == nil ? nil : origin
        }

        init<Value>(_ name: String, _ setting: Setting<Value>?, _ words: (Value) -> String) {
            self.init(name, setting.map { words($0.value) }, setting?.origin)
        }
    }

    /// `config set server URL`: the store's manifest rewritten by its writer.
    private static func set(_ context: Context) throws -> Int32 {
        let arguments = context.arguments
        try arguments.expectAtMost(3)
        let key = try arguments.positional(1, "the setting (server)")
        guard key == "server" else {
            throw context.usage(
                "only `server` is set here (it lives in the store); edit \(context.config.path) for the other settings")
        }
        let address = try SyncSetup.serverAddress(try arguments.positional(2, "URL"), context)
        let store = try context.openStore()
        let writer: StoreWriter
        do { writer = try StoreWriter(store: store) } catch {
            guard case .locked(let path, let holder) = error else { throw error }
            let by = holder.map { " (\($0))" } ?? ""
            throw CommandFailure(
                message:
                    "\(path) is held by another chatdir process\(by); stop `chatdir sync --live` first, then set the server and start it again",
                exitCode: 75)
        }
        let before = store.manifest.server
        _ = try writer.setServer(address)
        if let entry = context.storeConfig?.entries["server"] {
            context.output.error(
                "chatdir config: note: \(context.config.place(entry.line)) sets `server`, which is used before the store's"
            )
        }
        guard context.output.isTerminal else {
            context.output.print(address.description)
            return 0
        }
        let was = before.map { " (was \($0))" } ?? ""
        context.output.print(
            context.output.safe("\(store.userID)'s store in \(store.root) now syncs with \(address)\(was)"))
        return 0
    }
}
