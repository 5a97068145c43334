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
    /// Said in place of errno's text when the call succeeded but what it found is refused (a
    /// directory owned by another user): what was found and what to do.
    public var detail: String?

    public init(operation: String, path: String, errno: Errno, detail: String? = nil) {
        self.operation = operation
        self.path = path
        self.errno = errno
        self.detail = detail
    }

    public var description: String {
        let reason = detail ?? errno.description
        return path.isEmpty ? "\(operation): \(reason)" : "\(operation) \(path): \(reason)"
    }

    public var isNotFound: Bool { errno == .noSuchFile }
    public var isAlreadyExists: Bool { errno == .fileExists }
    public var isWouldBlock: Bool { errno == .wouldBlock }
    /// The peer went away (reset, broken pipe, not connected): the connection is over.
    public var isDisconnect: Bool { errno == .connectionReset || errno == .brokenPipe || errno == .notConnected }
    /// Permission refused (EACCES, EPERM): the remedy is the user's, not a retry.
    public var isPermissionDenied: Bool { errno == .accessDenied || errno == .notPermitted }
    /// A final symlink refused by `O_NOFOLLOW` (ELOOP), or a symlink where a directory was wanted.
    public var isSymbolicLink: Bool { errno == .tooManyLinks }
    /// More bytes than the reader's limit (EFBIG, as ``FileDescriptor/readToEnd(expected:limit:shortReadEnds:path:)`` reports it).
    public var isTooLarge: Bool { errno == .fileTooLarge }
}
