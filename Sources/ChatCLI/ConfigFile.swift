import ChatDomain
import ChatSystem

/// The user's config file, `$XDG_CONFIG_HOME/chatdir/config` (else `~/.config/chatdir/config`):
/// `key = value` lines, `#` comments on lines of their own (a `#` after a value is part of it), and a `[store PATH]` section per store.
///
/// ```
/// # the store used without --store or $CHATDIR_STORE
/// store = ~/chats/work
///
/// [store ~/chats/work]
/// token-command = pass show chat/alice
/// ca-file = ~/.config/chatdir/work-ca.pem
/// ```
///
/// Above the first section only `store` (the default store); in a section `token-file`,
/// `token-command`, `ca-file` and `server`. Paths are absolute or start with `~/`. Tokens never
/// live here: a `token` key is refused. It is read as untrusted input: every problem is a
/// ``ConfigFileError`` naming the file and line.
struct ConfigFile: Sendable {
    /// A value and the line it is on.
    struct Entry: Sendable, Equatable {
        var value: String
        var line: Int
    }

    /// One `[store PATH]` section.
    struct StoreSection: Sendable {
        /// The store's path, `~/` expanded.
        var path: String
        var line: Int
        var entries: [String: Entry] = [:]
    }

    /// Where the file is (or would be).
    var path = ""
    /// Whether there was a file to read.
    var exists = false
    /// `store = PATH` above the first section, `~/` expanded.
    var defaultStore: Entry?
    var stores: [StoreSection] = []

    static let topKeys = ["store"]
    static let storeKeys = ["ca-file", "server", "token-command", "token-file"]
    /// Values that name files, `~/` expanded and required to be absolute.
    static let pathKeys: Set<String> = ["store", "ca-file", "token-file"]
    /// Larger than any config a person writes: a bigger file is not one.
    static let maxSize = 64 << 10

    /// `$XDG_CONFIG_HOME/chatdir/config` when XDG_CONFIG_HOME is an absolute path, else
    /// `$HOME/.config/chatdir/config`.
    static func location(_ environment: Environment) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") { return config + "/chatdir/config" }
        return (environment["HOME"] ?? "") + "/.config/chatdir/config"
    }

    /// Reads the config file at ``location(_:)``; no file is an empty config.
    static func load(_ environment: Environment) throws(ConfigFileError) -> ConfigFile {
        let path = location(environment)
        let bytes: [UInt8]
        do { bytes = try Sys.readFile(path) } catch {
            if error.isNotFound { return ConfigFile(path: path) }
            throw .unreadable(path, error.description)
        }
        return try parse(bytes, path: path, home: environment["HOME"])
    }

    /// Parses the bytes of a config file; `path` names it in errors, `home` expands `~/`.
    static func parse(_ bytes: [UInt8], path: String, home: String?) throws(ConfigFileError) -> ConfigFile {
        guard bytes.count <= maxSize else { throw .tooLarge(path) }
        var config = ConfigFile(path: path, exists: true)
        var lineNumber = 0
        for lineBytes in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            lineNumber += 1
            let at = ConfigFileError.Place(file: path, line: lineNumber)
            var raw = Array(lineBytes)
            if raw.last == UInt8(ascii: "\r") { raw.removeLast() }
            let text = String(decoding: raw, as: UTF8.self)
            guard Array(text.utf8) == raw else { throw .notUTF8(at) }
            guard !text.unicodeScalars.contains(where: { $0 != "\t" && TerminalSafe.isUnsafe($0) }) else {
                throw .controlCharacter(at)
            }
            let line = text.trimmingWhitespace()
            if line.isEmpty || line.hasPrefix("#") { continue }
            if line.hasPrefix("[") {
                let section = try storeSection(line, at: at, home: home)
                if let earlier = config.stores.first(where: { $0.path == section.path }) {
                    throw .repeatedSection(at, section.path, earlier: earlier.line)
                }
                config.stores.append(section)
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { throw .notAnEntry(at) }
            let key = String(line[..<equals]).trimmingWhitespace()
            var value = String(line[line.index(after: equals)...]).trimmingWhitespace()
            guard !key.isEmpty else { throw .notAnEntry(at) }
            if key == "token" { throw .tokenInConfig(at) }
            let inSection = !config.stores.isEmpty
            let known = inSection ? storeKeys : topKeys
            guard known.contains(key) else { throw .unknownKey(at, key, known: known, inSection: inSection) }
            guard !value.isEmpty else { throw .noValue(at, key) }
            if pathKeys.contains(key) { value = try expand(value, key: key, at: at, home: home) }
            if key == "server" {
                do throws(ServerAddress.Invalid) { _ = try ServerAddress(value) } catch {
                    throw .badServer(at, error.description)
                }
            }
            let entry = Entry(value: value, line: lineNumber)
            if inSection {
                let index = config.stores.count - 1
                if let earlier = config.stores[index].entries[key] {
                    throw .repeatedKey(at, key, earlier: earlier.line)
                }
                let other = key == "token-file" ? "token-command" : key == "token-command" ? "token-file" : nil
                if let other, let earlier = config.stores[index].entries[other] {
                    throw .twoTokenSources(at, key, other, earlier: earlier.line)
                }
                config.stores[index].entries[key] = entry
            } else {
                if let earlier = config.defaultStore { throw .repeatedKey(at, key, earlier: earlier.line) }
                config.defaultStore = entry
            }
        }
        return config
    }

    /// `[store PATH]`.
    private static func storeSection(_ line: String, at: ConfigFileError.Place, home: String?) throws(ConfigFileError)
        -> StoreSection
    {
        guard line.hasSuffix("]") else { throw .badSection(at) }
        let inside = String(line.dropFirst().dropLast()).trimmingWhitespace()
        let path = String(inside.dropFirst(6)).trimmingWhitespace()
        guard inside.hasPrefix("store "), !path.isEmpty else { throw .badSection(at) }
        return StoreSection(path: try expand(path, key: "[store PATH]", at: at, home: home), line: at.line)
    }

    /// `~/x` → `$HOME/x`; a path must then be absolute (a relative one would depend on where
    /// chatdir happens to run). Trailing slashes go, so `~/chats/` and `~/chats` are one store.
    private static func expand(_ value: String, key: String, at: ConfigFileError.Place, home: String?)
        throws(ConfigFileError) -> String
    {
        var path = value
        if path == "~" || path.hasPrefix("~/") {
            guard let home, home.hasPrefix("/") else { throw .noHome(at, key) }
            path = home + path.dropFirst()
        }
        guard path.hasPrefix("/") else { throw .relativePath(at, key, value) }
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// The section for the store at `storePath`: the same path once trailing slashes go, or
    /// the same directory once symbolic links are resolved.
    func section(for storePath: String) -> StoreSection? {
        var path = storePath
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        if let section = stores.first(where: { $0.path == path }) { return section }
        guard let real = Sys.realPath(path) else { return nil }
        return stores.first { Sys.realPath($0.path) == real }
    }

    /// `file:line`, how ``chatdir config`` names where a value came from.
    func place(_ line: Int) -> String { "\(path):\(line)" }
}
