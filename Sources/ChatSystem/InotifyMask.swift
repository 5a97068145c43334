#if canImport(Glibc)
    import Glibc
#endif

/// The bits of an inotify event mask the store cares about (`inotify(7)`).
public struct InotifyMask: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let closeWrite = InotifyMask(rawValue: UInt32(IN_CLOSE_WRITE))
    public static let movedFrom = InotifyMask(rawValue: UInt32(IN_MOVED_FROM))
    public static let movedTo = InotifyMask(rawValue: UInt32(IN_MOVED_TO))
    public static let create = InotifyMask(rawValue: UInt32(IN_CREATE))
    public static let delete = InotifyMask(rawValue: UInt32(IN_DELETE))
    public static let deleteSelf = InotifyMask(rawValue: UInt32(IN_DELETE_SELF))
    public static let moveSelf = InotifyMask(rawValue: UInt32(IN_MOVE_SELF))
    public static let unmount = InotifyMask(rawValue: UInt32(IN_UNMOUNT))
    public static let overflow = InotifyMask(rawValue: UInt32(IN_Q_OVERFLOW))
    public static let ignored = InotifyMask(rawValue: UInt32(IN_IGNORED))
    public static let isDirectory = InotifyMask(rawValue: UInt32(IN_ISDIR))
    /// Watch only if the path is a directory (for `inotify_add_watch`).
    public static let onlyDirectory = InotifyMask(rawValue: UInt32(IN_ONLYDIR))
}
