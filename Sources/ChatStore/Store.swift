import ChatDomain
import ChatSystem

/// One account's chats on one device: a directory in format v1 (docs/FORMAT.md).
///
/// `Store` and ``Conversation`` only read. Writing goes through three doors, one per owner:
/// ``StoreWriter`` (segments, positions, conversation details; holds the lock), ``Outbox``
/// (outbox files; any process, no lock) and ``Store/create(at:manifest:)``.
public struct Store: Sendable {
    /// The store's root directory, as given (relative paths stay relative).
    public let root: String
    public let manifest: Manifest

    public var userID: UserID { manifest.userID }

    /// Creates a new store at `root` (the directory may exist if it is empty).
    public static func create(at root: String, manifest: Manifest) throws(StoreError) -> Store {
        switch Sys.kind(of: root) {
        case nil:
            break
        case .directory:
            let names = (try? Sys.listDirectory(root)) ?? []
            guard names.isEmpty else { throw .alreadyExists(path: root) }
        default:
            throw .alreadyExists(path: root)
        }
        // Built in a hidden sibling and renamed into place (over an empty directory, if there is
        // one): a crash leaves either no store or a whole one, never a root without a manifest.
        let parent = DurableFile.parentPath(of: root)
        let name = root.split(separator: "/").last.map(String.init) ?? root
        let building =
            parent + "/." + name + "." + String(Sys.currentProcessID) + "." + String(UInt32.random(in: 0...UInt32.max))
            + ".tmp"
        let replacesEmptyDirectory = Sys.kind(of: root) == .directory
        var renamed = false
        do {
            try DurableFile.makeDirectories(building + "/" + StoreLayout.conversations)
            try DurableFile.write(manifest.encode(), to: StoreLayout.manifest, in: building)
            try Sys.rename(building, root)
            renamed = true
            try Sys.fsyncPath(parent)
        } catch {
            // `init` said it failed, so no store may be left: take a renamed one back out of
            // place (its rename is not durable), leaving an empty directory where there was one.
            if renamed, (try? Sys.rename(root, building)) != nil, replacesEmptyDirectory {
                _ = try? Sys.mkdir(root)
            }
            _ = try? Sys.unlink(building + "/" + StoreLayout.manifest)
            _ = try? Sys.removeDirectory(building + "/" + StoreLayout.conversations)
            _ = try? Sys.removeDirectory(building)
            throw .system(error)
        }
        return Store(root: root, manifest: manifest)
    }

    /// Opens the store at `root`, reading only its manifest.
    public static func open(at root: String) throws(StoreError) -> Store {
        let path = root + "/" + StoreLayout.manifest
        guard let bytes = try StoreFiles.read(path, relative: StoreLayout.manifest, limit: 1 << 20, what: "a manifest")
        else {
            throw .notAStore(
                path: root,
                reason: Sys.kind(of: root) == nil ? "it does not exist" : "it has no \(StoreLayout.manifest)")
        }
        return Store(root: root, manifest: try Manifest.decode(bytes, path: StoreLayout.manifest))
    }

    init(root: String, manifest: Manifest) {
        self.root = root
        self.manifest = manifest
    }

    /// The conversations in the store, sorted by ID. Directories whose names are not valid IDs
    /// are skipped here (never used as paths); `check` reports them.
    public func conversationIDs() throws(StoreError) -> [ConversationID] {
        let names = try system { () throws(SystemError) in
            try Sys.listDirectoryIfPresent(root + "/" + StoreLayout.conversations)
        }
        return names.compactMap { try? ConversationID($0) }
            .filter { Sys.kind(of: root + "/" + StoreLayout.conversations + "/" + $0.rawValue) == .directory }
            .sorted()
    }

    /// The files of one conversation (no I/O; see ``Conversation/exists``).
    public func conversation(_ id: ConversationID) -> Conversation {
        Conversation(storeRoot: root, id: id, segmentSize: manifest.segmentSize, storeProtocol: manifest.storeProtocol)
    }

    /// The conversation `id`, or ``StoreError/unknownConversation(_:)`` when it has no directory
    /// (``StoreError/startedAs(_:folder:)`` when a sync moved it there from this ID);
    /// refused, naming it, when its folder (or `messages/`, `outbox/`) is a symlink or a file
    /// (``Conversation/requirePlainDirectories()``).
    public func existingConversation(_ id: ConversationID) throws(StoreError) -> Conversation {
        var conversation = conversation(id)
        guard try conversation.requirePlainDirectories() else {
            if let folder = StartedFile.folder(startedAs: id, storeRoot: root), folder != id {
                throw .startedAs(id, folder: folder)
            }
            throw .unknownConversation(id)
        }
        conversation.checkedPlain = true
        return conversation
    }
}
