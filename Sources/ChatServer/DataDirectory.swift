import ChatDomain
import ChatStore
import ChatSystem

/// The server's state on disk, loaded into memory at start: the users file and every
/// conversation, in the store format (docs/PROTOCOL.md, "Data directory"):
///
/// ```
/// DATA/users.json                                    tokens → user IDs (unless --users names another file)
/// DATA/conversations/<id>/conversation.json          title and members (by hand, create, or POST /v1/conversations)
/// DATA/conversations/<id>/messages/<first>-<last>.json   accepted messages, 100 per segment
/// DATA/conversations/<id>/positions.json             every member's deliveredUpTo / readUpTo
/// DATA/.lock                                         held while a server runs
/// ```
///
/// There is no `chatdir.json`: the directory is the server's, not a user's store; segments
/// always hold ``segmentSize`` messages. Conversations are made by writing `conversation.json`
/// (or ``create(at:users:conversations:)``) before the server starts, or while it runs by
/// `POST /v1/conversations` (``startConversation(_:info:)``).
public final class DataDirectory: Sendable {
    /// Messages per segment file: the store format's default.
    public static let segmentSize = StoreLayout.defaultSegmentSize
    /// The users file's name inside the data directory.
    public static let usersFileName = "users.json"

    public let path: String
    let users: UserTokens
    /// Every conversation, by ID: a snapshot of the table (a started conversation joins it).
    var conversations: [ConversationID: ConversationLog] { table.withLock { $0 } }
    let table: Lock<[ConversationID: ConversationLog]>
    /// Held by one ``startConversation(_:info:)`` at a time, through its writes: the table's
    /// own lock is taken only to look and to add, so no request waits on a start's fsyncs. Its
    /// value counts the conversations started. (With a `Lock<Void>`, ThreadSanitizer reported a
    /// Swift access race on the zero-sized value between two threads that each held the mutex.)
    let starting = Lock<Int>(0)
    /// The flock on `.lock`; nil once released.
    private let lock: Lock<StoreLock?>
    /// Every conversation's positions.json writes, made durable together.
    let positionsCommitter = PositionsCommitter()

    /// Loads `path`, taking its lock so no second server writes into it.
    /// - Parameter usersFile: the users file; `path/users.json` when nil.
    /// - Throws: ``ServerError`` naming the file or directory that is wrong and what to do.
    public init(path: String, usersFile: String? = nil) throws(ServerError) {
        guard Sys.kind(of: path) == .directory else {
            throw .badDataDirectory(
                path: path, reason: "it is not a directory; make one with `chatdir serve --init \(path) --user NAME…`")
        }
        self.path = path
        users = try UserTokens.load(from: usersFile ?? path + "/" + Self.usersFileName)
        lock = Lock(try Self.takeLock(path))
        let conversationsPath = path + "/" + StoreLayout.conversations
        let names: [String]
        do {
            names = try Sys.listDirectory(conversationsPath)
        } catch {
            if !error.isNotFound { throw .storage(.system(error)) }
            names = []
        }
        var conversations: [ConversationID: ConversationLog] = [:]
        for name in names.sorted() {
            if name.hasPrefix(".") {
                DurableFile.removeHiddenBuild(conversationsPath + "/" + name)
                continue
            }
            let id: ConversationID
            do { id = try ConversationID(name) } catch {
                throw .badDataDirectory(
                    path: conversationsPath + "/" + name, reason: "\(error); rename or remove the directory")
            }
            let conversation = Conversation(storeRoot: path, id: id, segmentSize: Self.segmentSize)
            SegmentLog(conversation).removeStaleTemporaries()
            let info: ConversationInfo?
            do { info = try conversation.info() } catch { throw .storage(error) }
            guard let info else {
                throw .badDataDirectory(
                    path: conversation.directory,
                    reason:
                        "it has no conversation.json; write one like {\"members\":[\"alice\",\"bob\"],\"title\":\"Alice and Bob\"} or remove the directory"
                )
            }
            conversations[id] = try ConversationLog(
                id: id, info: info, conversation: conversation, positionsCommitter: positionsCommitter)
        }
        table = Lock(conversations)
    }

    /// Lets another server open this directory (after the server stopped writing).
    /// Takes the directory's lock, trying for up to a second: a server that just stopped may
    /// still share its lock with a child process some other thread is starting (until that
    /// child's exec closes the descriptor), and a restart should not fail on that.
    private static func takeLock(_ path: String) throws(ServerError) -> StoreLock {
        var attempts = 0
        while true {
            do {
                return try StoreLock(storeRoot: path)
            } catch {
                guard case .locked = error else { throw .storage(error) }
                attempts += 1
                if attempts >= 50 { throw .dataDirectoryInUse(path: path) }
                SystemThread.sleep(milliseconds: 20)
            }
        }
    }

    func releaseLock() {
        lock.withLock { $0 = nil }
    }

    /// Makes a new data directory for `users`, each with a fresh random token (``UserTokens/fresh(for:)``),
    /// and no conversation yet (members start them with `chatdir create`). The directory may
    /// exist when it is empty; anything in it is refused and left as it was, so tokens a server
    /// already hands out are never replaced. Directories are 0700 and `users.json` 0600: the
    /// tokens are the only sign-in. Returns the tokens, which the caller shows once.
    public static func initialize(at path: String, users: [UserID]) throws(ServerError) -> UserTokens {
        if let kind = Sys.kind(of: path) {
            let names: [String]
            do { names = kind == .directory ? try Sys.listDirectory(path) : [""] } catch {
                throw .storage(.system(error))
            }
            guard names.isEmpty else { throw .dataDirectoryExists(path: path) }
            // An empty directory made with the umask's mode: the tokens live here.
            do { try Sys.chmod(path, FileDescriptor.directoryMode) } catch { throw .storage(.system(error)) }
        }
        let tokens = UserTokens.fresh(for: users)
        try create(at: path, users: tokens, conversations: [:])
        return tokens
    }

    /// Creates a data directory (or adds to an empty one): the users file and each conversation's
    /// `conversation.json`, durably. For tests, demos and the load tool.
    public static func create(at path: String, users: UserTokens, conversations: [ConversationID: ConversationInfo])
        throws(ServerError)
    {
        do throws(SystemError) {
            try DurableFile.makeDirectories(path + "/" + StoreLayout.conversations)
            try DurableFile.write(users.encode(), to: usersFileName, in: path)
        } catch {
            throw .storage(.system(error))
        }
        for (id, info) in conversations {
            do {
                try SegmentLog(Conversation(storeRoot: path, id: id, segmentSize: segmentSize)).create(info)
            } catch {
                throw .storage(error)
            }
        }
    }
}
