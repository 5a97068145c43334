#if canImport(Glibc)
    import Glibc
#endif

/// What `lstat(2)` says of a path that polling compares: its kind, which file it is, its size and
/// the times its contents and its inode last changed. A file replaced by rename is another
/// inode; one written in place moves its times (to the resolution of the file system's clock).
public struct PathStatus: Hashable, Sendable {
    public let kind: Sys.FileKind
    public let identity: FileIdentity
    public let size: Int64
    /// `st_mtim` in nanoseconds since 1970.
    public let modified: Int128
    /// `st_ctim` in nanoseconds since 1970.
    public let changed: Int128

    init(_ info: stat) {
        kind = Sys.FileKind(mode: info.st_mode)
        identity = FileIdentity(info)
        size = Int64(info.st_size)
        modified = Int128(info.st_mtim.tv_sec) * 1_000_000_000 + Int128(info.st_mtim.tv_nsec)
        changed = Int128(info.st_ctim.tv_sec) * 1_000_000_000 + Int128(info.st_ctim.tv_nsec)
    }
}

extension Sys {
    /// `lstat(2)` of `path` (a final symlink is not followed); nil when nothing is there.
    public static func status(of path: String) -> PathStatus? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return PathStatus(info)
    }
}
