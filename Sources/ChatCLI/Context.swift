import ChatDomain
import ChatStore
import ChatSystem

/// What a running command has: output, environment, its parsed arguments.
struct Context {
    var output: Output
    var environment: Environment
    var arguments: ParsedArguments
    /// Nanoseconds since 1970 when the command started (for `view` and `chat`'s time to open).
    /// The wall clock, not the monotonic one: reading that traps where it is faked below zero
    /// (`faketime` before 1970), and every command reads this.
    var started = Clock.nanosecondsSince1970()

    /// The user's config file (empty for commands that open no store, and when there is none).
    var config = ConfigFile()

    /// `--store`, else `$CHATDIR_STORE`, else the config's `store`, else `$XDG_DATA_HOME/chatdir`,
    /// else `~/.local/share/chatdir`.
    var storePath: String { store.value }

    /// ``storePath`` with where it came from.
    var store: Setting<String> {
        if let path = arguments.value("--store"), !path.isEmpty {
            return Setting(value: path, origin: .flag("--store"))
        }
        if let path = environment["CHATDIR_STORE"], !path.isEmpty {
            return Setting(value: path, origin: .environment("CHATDIR_STORE"))
        }
        if let entry = config.defaultStore {
            return Setting(value: entry.value, origin: .config(config.place(entry.line)))
        }
        return Setting(value: dataStorePath, origin: .defaultValue)
    }

    /// The store used without `--store` or `$CHATDIR_STORE`: the config's `store`, else
    /// ``dataStorePath``.
    var defaultStorePath: String { config.defaultStore?.value ?? dataStorePath }

    /// `$XDG_DATA_HOME/chatdir`, else `~/.local/share/chatdir`.
    var dataStorePath: String {
        if let data = environment["XDG_DATA_HOME"], !data.isEmpty { return data + "/chatdir" }
        return (environment["HOME"] ?? ".") + "/.local/share/chatdir"
    }

    /// The config file's section for the store in use, if it has one.
    var storeConfig: ConfigFile.StoreSection? { config.section(for: storePath) }

    /// How printed commands name this store: with `--store DIR` unless it is the default one
    /// (`$CHATDIR_STORE` counts as not default: a hint pasted into another shell must still work).
    var hint: PasteHint {
        storePath == defaultStorePath ? .defaultStore : PasteHint(store: storePath)
    }

    func openStore() throws(StoreError) -> Store {
        try Store.open(at: storePath)
    }

    /// Parses a conversation ID from the command line: a usage error naming it when invalid.
    func conversationID(_ text: String) throws(UsageError) -> ConversationID {
        do { return try ConversationID(text) } catch {
            throw UsageError(message: error.description, command: arguments.command)
        }
    }

    func usage(_ message: String) -> UsageError {
        UsageError(message: message, command: arguments.command)
    }
}
