#if canImport(Glibc)
    import Glibc
#endif

/// An `errno` value with a name, so callers ask `error.errno == .noSpace` instead of comparing
/// numbers; its description is the system's text for it (`strerror(3)`).
public struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// What the calling thread's last failed call left in `errno`.
    static var current: Errno { Errno(rawValue: errno) }

    /// `strerror(3)`: "No space left on device".
    public var description: String { String(cString: strerror(rawValue)) }

    public static let notPermitted = Errno(rawValue: EPERM)
    public static let noSuchFile = Errno(rawValue: ENOENT)
    public static let noSuchProcess = Errno(rawValue: ESRCH)
    public static let interrupted = Errno(rawValue: EINTR)
    public static let ioError = Errno(rawValue: EIO)
    public static let badDescriptor = Errno(rawValue: EBADF)
    /// EAGAIN, which Linux also spells EWOULDBLOCK.
    public static let wouldBlock = Errno(rawValue: EAGAIN)
    public static let noMemory = Errno(rawValue: ENOMEM)
    public static let accessDenied = Errno(rawValue: EACCES)
    public static let fileExists = Errno(rawValue: EEXIST)
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    public static let isDirectory = Errno(rawValue: EISDIR)
    public static let directoryNotEmpty = Errno(rawValue: ENOTEMPTY)
    public static let invalidArgument = Errno(rawValue: EINVAL)
    public static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    public static let noSpace = Errno(rawValue: ENOSPC)
    public static let quotaExceeded = Errno(rawValue: EDQUOT)
    public static let readOnlyFileSystem = Errno(rawValue: EROFS)
    public static let brokenPipe = Errno(rawValue: EPIPE)
    public static let addressInUse = Errno(rawValue: EADDRINUSE)
    public static let addressNotAvailable = Errno(rawValue: EADDRNOTAVAIL)
    public static let connectionAborted = Errno(rawValue: ECONNABORTED)
    public static let connectionReset = Errno(rawValue: ECONNRESET)
    public static let notConnected = Errno(rawValue: ENOTCONN)
    public static let timedOut = Errno(rawValue: ETIMEDOUT)
    public static let connectionRefused = Errno(rawValue: ECONNREFUSED)
    public static let hostUnreachable = Errno(rawValue: EHOSTUNREACH)
    public static let networkUnreachable = Errno(rawValue: ENETUNREACH)
    public static let inProgress = Errno(rawValue: EINPROGRESS)
    public static let tooManyLinks = Errno(rawValue: ELOOP)
    public static let fileTooLarge = Errno(rawValue: EFBIG)
}
