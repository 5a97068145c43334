import ChatDomain
import ChatStore
import ChatSystem

/// What `chatdir login` keeps for a Matrix store, and where: the device ID it logs in as, the
/// token file under the config directory (and beside it the refresh token, when the homeserver
/// gives one), and the config's `token-file` line that points at it.
struct SavedLogin: Sendable {
    /// The store's absolute path, symbolic links resolved: what names it in the config and
    /// what its device ID is made from.
    var storeRoot: String
    /// `CHATDIR` and the first 16 upper-case hex digits of SHA-256 of ``storeRoot``: the same on
    /// every login from this store, so the homeserver's memory of transaction IDs (which is
    /// per device) still recognises a send retried after a new login; another store, or this
    /// one moved elsewhere, is another device.
    var deviceID: String
    /// `$XDG_CONFIG_HOME/chatdir/tokens/DEVICE.token` (else under `~/.config`).
    var tokenFile: String
    /// The directory that holds ``tokenFile``: this user's alone (0700).
    var tokenDirectory: String
    /// `DEVICE.refresh` beside ``tokenFile``: the refresh token of a homeserver that gives one
    /// (``MatrixTokenRefresher`` trades it for a new access token when the old one expires).
    var refreshFile: String { tokenDirectory + "/" + deviceID + ".refresh" }
    /// `DEVICE.lock` beside ``tokenFile``: held while a process renews the tokens, so two
    /// processes of one store never spend the same refresh token.
    var renewalLock: String { tokenDirectory + "/" + deviceID + ".lock" }

    /// The display name the homeserver shows for the device in the user's session list.
    static let deviceName = "chatdir"

    init(store: Store, environment: Environment) throws {
        storeRoot = Sys.realPath(store.root) ?? store.root
        deviceID = "CHATDIR" + String(SHA256.hex(storeRoot.utf8).prefix(16)).uppercased()
        guard let configDirectory = Self.configDirectory(environment) else {
            throw CommandFailure(
                message:
                    "no place for the token: set HOME (or XDG_CONFIG_HOME) to an absolute path; the token is saved under $XDG_CONFIG_HOME/chatdir/tokens",
                exitCode: 78)
        }
        tokenDirectory = configDirectory + "/tokens"
        tokenFile = tokenDirectory + "/" + deviceID + ".token"
    }

    /// The directory the config file is in (``ConfigFile/location(_:)``); nil without an
    /// absolute HOME or XDG_CONFIG_HOME, where a token would land relative to wherever
    /// chatdir happens to run.
    static func configDirectory(_ environment: Environment) -> String? {
        let config = ConfigFile.location(environment)
        guard config.hasPrefix("/") else { return nil }
        return String(config.dropLast("/config".count))
    }

    /// Saves `token` in ``tokenFile``, mode 0600, by a temp file and a rename (a reader sees the
    /// old token or the new one), flushed to disk before the config is pointed at it. The
    /// directories on the way are made 0700 when missing; the last one, `tokens`, is refused
    /// unless it is this user's alone (``PrivateDirectory``).
    func saveToken(_ token: String) throws {
        try save(token, as: deviceID + ".token", what: "the token")
    }

    /// Saves the refresh token in ``refreshFile`` as ``saveToken(_:)`` saves the token; nil
    /// removes it (a login that gave none leaves no older one behind).
    func saveRefreshToken(_ token: String?) throws {
        guard let token else {
            try remove(deviceID + ".refresh", what: "the refresh token")
            return
        }
        try save(token, as: deviceID + ".refresh", what: "the refresh token")
    }

    private func save(_ secret: String, as name: String, what: String) throws {
        do throws(SystemError) {
            let configDirectory = String(tokenDirectory.dropLast("/tokens".count))
            try DurableFile.makeDirectories(configDirectory)
            // Checked, not only made: a `tokens` someone else made or opened would hand them the token.
            _ = try PrivateDirectory.open(["tokens"], under: configDirectory, create: true)
            try DurableFile.write(Array((secret + "\n").utf8), to: name, in: tokenDirectory)
        } catch {
            throw CommandFailure(message: "cannot save \(what): \(error)", exitCode: 74)
        }
    }

    /// The token ``saveToken(_:)`` saved, or nil when there is none (never logged in, or
    /// logged out). Read as `sync` reads a token file, mode checked.
    func savedToken(_ environment: Environment) throws -> String? {
        guard Sys.kind(of: tokenFile) != nil else { return nil }
        return try TokenSource.file(tokenFile).fetch(environment)
    }

    /// The refresh token ``saveRefreshToken(_:)`` saved, or nil when there is none; mode checked.
    func savedRefreshToken(_ environment: Environment) throws -> String? {
        guard Sys.kind(of: refreshFile) != nil else { return nil }
        return try TokenSource.file(refreshFile).fetch(environment)
    }

    /// Removes ``tokenFile``, ``refreshFile`` and ``renewalLock``; quiet when they are gone already.
    func removeToken() throws {
        try remove(deviceID + ".refresh", what: "the refresh token")
        try remove(deviceID + ".token", what: "the token")
        try remove(deviceID + ".lock", what: "the renewal lock")
    }

    private func remove(_ name: String, what: String) throws {
        do throws(SystemError) {
            try DurableFile.remove(name, in: tokenDirectory)
        } catch {
            if error.isNotFound { return }
            throw CommandFailure(message: "cannot remove \(what): \(error)", exitCode: 74)
        }
    }

    // MARK: - The config's `token-file` line

    /// The config with this store's `token-file` set to ``tokenFile``: the line replaced when
    /// the store's section has one, added after the section's header when it has none, a new
    /// section at the end when the store has none. Every other line stays as it was.
    func pointConfig(_ config: ConfigFile, environment: Environment) throws {
        let line = "token-file = " + tokenFile
        var lines = try Self.lines(config)
        if let section = config.section(for: storeRoot) {
            if let entry = section.entries["token-file"] {
                lines[entry.line - 1] = line
            } else {
                lines.insert(line, at: section.line)
            }
        } else {
            if let last = lines.last, !last.trimmingWhitespace().isEmpty { lines.append("") }
            lines += ["[store " + storeRoot + "]", line]
        }
        try Self.write(lines, config: config, environment: environment) {
            $0.section(for: storeRoot)?.entries["token-file"]?.value == tokenFile
        }
    }

    /// The config without this store's `token-file` line when it names ``tokenFile``; false
    /// (and the file untouched) when it names another file or there is none.
    func unpointConfig(_ config: ConfigFile, environment: Environment) throws -> Bool {
        guard let entry = config.section(for: storeRoot)?.entries["token-file"], Self.same(entry.value, tokenFile)
        else { return false }
        var lines = try Self.lines(config)
        lines.remove(at: entry.line - 1)
        try Self.write(lines, config: config, environment: environment) {
            $0.section(for: storeRoot)?.entries["token-file"] == nil
        }
        return true
    }

    static func same(_ one: String, _ other: String) -> Bool {
        one == other || (Sys.realPath(one).map { $0 == Sys.realPath(other) } ?? false)
    }

    /// The config file's lines as they are on disk now (none when there is no file).
    private static func lines(_ config: ConfigFile) throws -> [String] {
        guard config.exists else { return [] }
        let bytes: [UInt8]
        do throws(SystemError) { bytes = try Sys.readFile(config.path) } catch {
            throw CommandFailure(message: "cannot read \(config.path): \(error)", exitCode: 74)
        }
        var lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Writes `lines` as the config file, by a temp file and a rename beside the file (through
    /// a symbolic link to where it points, so a config kept among dotfiles stays a link), once
    /// the new text reads back as a valid config for which `holds` is true: an edit that would
    /// break the config is refused and leaves it as it was.
    private static func write(
        _ lines: [String], config: ConfigFile, environment: Environment, holds: (ConfigFile) -> Bool
    ) throws {
        let bytes = Array((lines.joined(separator: "\n") + "\n").utf8)
        let path = config.path
        let parsed: ConfigFile
        do { parsed = try ConfigFile.parse(bytes, path: path, home: environment["HOME"]) } catch {
            throw CommandFailure(
                message: "\(path) left as it was: the edit would not read back: \(error.message)", exitCode: 78)
        }
        guard holds(parsed) else {
            throw CommandFailure(message: "\(path) left as it was: the edit would not read back as meant", exitCode: 78)
        }
        let target = Sys.kind(of: path) == .symlink ? (Sys.realPath(path) ?? path) : path
        guard let slash = target.lastIndex(of: "/") else { return }
        let directory = slash == target.startIndex ? "/" : String(target[..<slash])
        let name = String(target[target.index(after: slash)...])
        do throws(SystemError) {
            try DurableFile.makeDirectories(directory)
            try DurableFile.write(bytes, to: name, in: directory)
        } catch {
            throw CommandFailure(message: "cannot write \(path): \(error)", exitCode: 74)
        }
    }
}
