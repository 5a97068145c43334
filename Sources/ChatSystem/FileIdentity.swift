#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
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

extension Sys {
    /// The file `path` names now (`stat(2)`, following symlinks); nil when nothing is there.
    public static func identity(of path: String) -> FileIdentity? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileIdentity(info)
    }
}
