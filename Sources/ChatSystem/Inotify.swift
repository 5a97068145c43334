#if canImport(Glibc)
    import Glibc
#endif

/// `inotify(7)` calls, wrapped once.
public enum Inotify {
    /// Bytes per `read(2)`: many events at once, and always more than one event's maximum
    /// (`16 + NAME_MAX + 1`), which a smaller buffer would fail with EINVAL.
    public static let bufferSize = 64 * 1024

    /// The operation a failed ``open(for:)`` names (``InotifyLimit/refusing(_:)`` reads it).
    public static let openOperation = "inotify_init1"
    /// The operation a failed ``addWatch(_:path:mask:)`` names.
    public static let addWatchOperation = "inotify_add_watch"

    /// `inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`: a non-blocking descriptor, so a read after
    /// `poll(2)` drains the queue and stops with EAGAIN instead of waiting. `path` is the
    /// directory it is for: an error names it (the call itself takes none), and a test's
    /// ``FaultInjection/limitInotify(under:watches:instances:)`` matches it.
    public static func open(for path: String = "") throws(SystemError) -> FileDescriptor {
        try FaultInjection.checkInotify(opening: path)
        let fd = try Syscall.retrying(
            openOperation, path.isEmpty ? "(no path; at most /proc/sys/fs/inotify/max_user_instances per user)" : path
        ) {
            inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        }
        return FileDescriptor(owning: fd)
    }

    /// `inotify_add_watch(2)`; returns the watch descriptor (the same one again for a path
    /// already watched).
    public static func addWatch(_ fd: borrowing FileDescriptor, path: String, mask: InotifyMask) throws(SystemError)
        -> Int32
    {
        try FaultInjection.checkInotify(watching: path)
        return try Syscall.retrying(addWatchOperation, path) { inotify_add_watch(fd.rawValue, path, mask.rawValue) }
    }

    /// `inotify_rm_watch(2)`; a watch the kernel already dropped (EINVAL) is not an error.
    public static func removeWatch(_ fd: borrowing FileDescriptor, _ watch: Int32) {
        _ = inotify_rm_watch(fd.rawValue, watch)
    }

    /// Reads queued events into `buffer`; returns the bytes read, 0 when the queue is empty.
    public static func read(_ fd: borrowing FileDescriptor, into buffer: inout [UInt8]) throws(SystemError) -> Int {
        do {
            return try fd.read(into: &buffer, path: "(inotify descriptor)")
        } catch  where error.isWouldBlock {
            return 0
        }
    }
}
