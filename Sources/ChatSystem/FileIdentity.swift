#if canImport(Glibc)
    import Glibc
#endif

/// Which file a name or a descriptor refers to: device and inode (`stat(2)`), the same for every
/// name and descriptor of one file. A lock taken on a descriptor guards the file a name refers
/// to only while the two identities are equal (the name may have been unlinked or replaced since).
public struct FileIdentity: Hashable, Sendable {
    public let device: UInt64
    public let inode: UInt64

    init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}

extension FileDescriptor {
    /// The file this descriptor is open on (`fstat(2)`).
    public func identity(path: String) throws(SystemError) -> FileIdentity {
        var info = stat()
        _ = try Syscall.retrying("stat", path) { fstat(rawValue, &info) }
        return FileIdentity(info)
    }
}

/// What `fstat(2)` says of an open file that decides whether to trust it.
public struct FileStatus: Sendable, Equatable {
    /// The owner's user ID.
    public var owner: UInt32
    /// The permission bits (`st_mode & 0o7777`).
    public var permissions: UInt32
}

extension FileDescriptor {
    /// Owner and permissions of the open file (`fstat(2)`).
    public func status(path: String) throws(SystemError) -> FileStatus {
        var info = stat()
        _ = try Syscall.retrying("stat", path) { fstat(rawValue, &info) }
        return FileStatus(owner: info.st_uid, permissions: UInt32(info.st_mode & 0o7777))
    }

    /// `mkdirat(2)` of `name` in this directory, mode 0700.
    public func makeDirectoryAt(_ name: String, path: String) throws(SystemError) {
        _ = try Syscall.retrying("mkdir", path) { mkdirat(rawValue, name, FileDescriptor.directoryMode) }
    }

    /// The names in this directory, without `.` and `..`, in no particular order: read through
    /// a duplicate of the descriptor (`dup(2)`, `fdopendir(3)`), so nothing is opened by name.
    public func names(path: String) throws(SystemError) -> [String] {
        let copy = try Syscall.retrying("dup", path) { dup(rawValue) }
        guard let stream = fdopendir(copy) else {
            let error = SystemError(operation: "opendir", path: path, errno: .current)
            Syscall.close(copy)
            throw error
        }
        defer { closedir(stream) }
        rewinddir(stream)
        return try Sys.names(in: stream, path: path)
    }
}

extension Sys {
    /// The file `path` names now (`stat(2)`, following symlinks); nil when nothing is there.
    public static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(info)
    }
}
