/// A failed system call: which call, on which path (or socket address), and errno.
///
/// Its description is what users read: `fsync /s/conversations/c1/outbox: No space left on
/// device`, or without a path `pipe: Too many open files`.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The call, as a person would name it: `open`, `fsync`, `bind`.
    public var operation: String
    /// The file, directory or address it was about; "" when there is none.
    public var path: String
    public var errno: Errno

    public init(operation: String, path: String, errno: Errno) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public var description: String {
        path.isEmpty ? "\(operation): \(errno)" : "\(operation) \(path): \(errno)"
    }

    public var isNotFound: Bool { errno == .noSuchFile }
    public var isAlreadyExists: Bool { errno == .fileExists }
    public var isWouldBlock: Bool { errno == .wouldBlock }
    /// The peer went away (reset, broken pipe, not connected): the connection is over.
    public var isDisconnect: Bool { errno == .connectionReset || errno == .brokenPipe || errno == .notConnected }
    /// Permission refused (EACCES, EPERM): the remedy is the user's, not a retry.
    public var isPermissionDenied: Bool { errno == .accessDenied || errno == .notPermitted }
}
