import ChatDomain
import ChatStore
import ChatSystem

/// Why the server cannot start or go on: one line a person can act on, and a sysexits code.
public enum ServerError: Error, Sendable, CustomStringConvertible {
    /// The data directory is missing, unreadable or holds a damaged file.
    case badDataDirectory(path: String, reason: String)
    /// The users file is missing or malformed.
    case badUsersFile(path: String, reason: String)
    /// Another server already uses this data directory.
    case dataDirectoryInUse(path: String)
    /// `serve --init` was given a directory that exists and is not empty.
    case dataDirectoryExists(path: String)
    /// A file of the data directory could not be read or written.
    case storage(StoreError)
    /// The listening socket could not be set up.
    case socket(SystemError)
    /// The TLS certificate or key (`serve --tls-cert/--tls-key`) is unusable or too open.
    case tls(String)

    public var description: String {
        switch self {
        case .badDataDirectory(let path, let reason):
            "data directory \(path): \(reason)"
        case .badUsersFile(let path, let reason):
            "users file \(path): \(reason)"
        case .dataDirectoryInUse(let path):
            "data directory \(path) is in use by another chatdir serve; stop it first or pass another --data"
        case .dataDirectoryExists(let path):
            "data directory \(path) exists and is not empty: nothing was written; serve it with `chatdir serve --data \(path)`, or give --init a new directory"
        case .storage(let error):
            error.description
        case .socket(let error):
            error.description + Self.hint(error.errno)
        case .tls(let reason):
            reason
        }
    }

    /// What to do about a socket that cannot be set up, for the errors `bind` gives.
    static func hint(_ errno: Errno) -> String {
        switch errno {
        case .addressInUse:
            "; another process listens on that port: pick another with --port, or --port 0 for any free one"
        case .accessDenied: "; ports below 1024 need privileges: use a higher --port"
        case .addressNotAvailable: "; that address is not on this machine: use 127.0.0.1"
        default: ""
        }
    }

    /// Whether the listening socket could not be bound because the address is taken (EADDRINUSE):
    /// the one failure a restart on the same port may wait out.
    public var isAddressInUse: Bool {
        if case .socket(let error) = self { return error.errno == .addressInUse }
        return false
    }

    /// The sysexits(3) code for this error.
    public var exitCode: Int32 {
        switch self {
        case .badDataDirectory, .badUsersFile: 66 // EX_NOINPUT
        case .dataDirectoryInUse: 75 // EX_TEMPFAIL
        case .dataDirectoryExists: 73 // EX_CANTCREAT
        case .storage(let error): error.exitCode
        case .socket: 69 // EX_UNAVAILABLE
        case .tls: 77 // EX_NOPERM: a key others can read, or unusable files
        }
    }
}
