import ChatDomain
import ChatSystem

/// Why a store operation failed. Each case's description is one line a person can act on;
/// ``exitCode`` is its sysexits code.
public enum StoreError: Error, Sendable, CustomStringConvertible {
    /// A file does not parse or breaks the format's rules.
    case damaged(StoreProblem)
    /// There is no store at a path, or it is not one.
    case notAStore(path: String, reason: String)
    /// The manifest names a format this build does not read.
    case unsupportedFormat(path: String, found: String)
    /// The store has no directory for this conversation.
    case unknownConversation(ConversationID)
    /// The conversation was queued here under this ID and a sync moved it to the folder the
    /// server's name for it gives (``StartedFile``).
    case startedAs(ConversationID, folder: ConversationID)
    /// No outbox file has this client message ID.
    case unknownOutboxMessage(ConversationID, ClientMessageID)
    /// A cancel found the message changing under it again and again (a sync worker delivering it).
    case outboxBusy(ConversationID, ClientMessageID)
    /// Something exists where a new store or file should go.
    case alreadyExists(path: String)
    /// Another process holds the store's writer lock.
    case locked(path: String, holder: String?)
    /// An ID or text broke a domain rule.
    case invalid(DomainError)
    /// A system call failed (disk full, permission, I/O error).
    case system(SystemError)
    /// A sequence beyond ``StoreLayout/maxSequence``: its segment's name would not be 10 digits.
    case sequenceTooLarge(Int, ConversationID)
    /// The store is of a kind this operation does not serve (a Matrix store handed to the wire
    /// v1 sync): why, in a sentence.
    case unsupported(path: String, reason: String)

    public var description: String {
        switch self {
        case .damaged(let problem):
            problem.description
        case .notAStore(let path, let reason):
            "\(path): not a chatdir store (\(reason)); create one with `chatdir init --store \(path) --user NAME`"
        case .unsupportedFormat(let path, let found):
            "\(path): " + Self.unsupportedFormatMessage(found)
        case .unknownConversation(let id):
            "no conversation \(quoted(id.rawValue)) in this store; `chatdir list` shows the ones there are (`chatdir sync` fetches new ones)"
        case .startedAs(let id, let folder):
            "no conversation \(quoted(id.rawValue)) in this store: a sync started it on the server and moved it, with its queued messages, to \(folder.rawValue); use that"
        case .unknownOutboxMessage(let conversation, let id):
            "no outbox message \(id) in conversation \(conversation); `chatdir view \(conversation)` shows pending and failed messages with their IDs"
        case .outboxBusy(let conversation, let id):
            "message \(id) in conversation \(conversation) kept changing while it was being cancelled (a sync worker is delivering it); run the command again"
        case .alreadyExists(let path):
            "\(path) already exists and is left as it is; choose another path"
        case .locked(let path, let holder):
            "\(path) is held by another chatdir process\(holder.map { " (\($0))" } ?? ""); only one sync worker may run per store: "
                + "wait for it to finish, or stop it (\(Self.stopHint(holder))), then run the command again"
        case .invalid(let error):
            error.description
        case .system(let error):
            error.description + Self.remedy(error.errno)
        case .sequenceTooLarge(let sequence, let id):
            "conversation \(id): sequence \(sequence) is beyond the largest a store holds (\(StoreLayout.maxSequence): segment names have 10 digits); nothing was written"
        case .unsupported(let path, let reason):
            "\(path): \(reason)"
        }
    }

    /// How to stop the lock's holder: `kill PID` (SIGTERM, on which `sync --live` finishes its
    /// write and exits 0, so a systemd unit does not restart it), or Ctrl-C where it runs.
    static func stopHint(_ holder: String?) -> String {
        guard let holder, holder.hasPrefix("pid ") else {
            return "Ctrl-C where it runs, or `systemctl --user stop` its unit"
        }
        let pid = holder.dropFirst(4).prefix { $0.isNumber }
        return "`kill \(pid)`, or Ctrl-C where it runs"
    }

    /// What a person can do about a failed system call, for the errors a disk gives.
    static func remedy(_ errno: Errno) -> String {
        switch errno {
        case .noSpace: "; the disk is full: free some space, then run the command again"
        case .quotaExceeded: "; the disk quota is used up: free some space, then run the command again"
        case .ioError:
            "; the disk reported an I/O error: check the disk (`dmesg` says more), then run the command again"
        default: ""
        }
    }

    static func unsupportedFormatMessage(_ found: String) -> String {
        "format \(found) is not supported by this chatdir (it reads format \(StoreLayout.formatVersion)); use a chatdir that knows that format; nothing was changed"
    }

    /// The sysexits(3) code for this error.
    public var exitCode: Int32 {
        switch self {
        case .damaged, .unsupportedFormat: 65 // EX_DATAERR
        case .notAStore, .unknownConversation, .startedAs, .unknownOutboxMessage: 66 // EX_NOINPUT
        case .alreadyExists: 73 // EX_CANTCREAT
        case .locked, .outboxBusy: 75 // EX_TEMPFAIL
        case .invalid, .sequenceTooLarge: 65 // EX_DATAERR
        case .unsupported: 69 // EX_UNAVAILABLE
        case .system(let error): error.isPermissionDenied ? 77 : 74 // EX_NOPERM / EX_IOERR
        }
    }
}

/// Runs a file operation, turning its ``SystemError`` into ``StoreError/system(_:)``.
@inline(__always)
func system<T: ~Copyable>(_ body: () throws(SystemError) -> T) throws(StoreError) -> T {
    do {
        return try body()
    } catch {
        throw .system(error)
    }
}
