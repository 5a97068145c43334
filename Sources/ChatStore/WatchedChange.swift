/// One committed change under a watched directory, named relative to the watcher's root.
public struct WatchedChange: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// A file appeared or was replaced: renamed into place, linked, or closed after writing.
        case written
        /// A file was unlinked or renamed away.
        case removed
        /// A directory appeared; its files (already there before its watch existed) follow as `written`.
        case directoryAppeared
        /// A directory was removed or renamed away.
        case directoryRemoved
    }

    /// The directory relative to the root: "" for the root itself, "messages", "c1/outbox".
    public var directory: String
    public var name: String
    public var kind: Kind

    public init(directory: String, name: String, kind: Kind) {
        self.directory = directory
        self.name = name
        self.kind = kind
    }

    /// `directory/name`, relative to the root.
    public var path: String { directory.isEmpty ? name : directory + "/" + name }
}
