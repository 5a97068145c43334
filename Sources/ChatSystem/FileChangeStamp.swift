#if canImport(Glibc)
    import Glibc
#endif

/// Which file a descriptor is open on and when its contents and its inode last changed
/// (`fstat(2)`: device, inode, `st_mtim`, `st_ctim`). For a directory, any name made, removed or
/// renamed in it moves both times, so an equal stamp later says nothing changed since, to the
/// resolution of the file system's clock (see docs/ARCHITECTURE.md, "The newest ordinal").
public struct FileChangeStamp: Hashable, Sendable {
    public let identity: FileIdentity
    /// `st_mtim` in nanoseconds since 1970.
    public let modified: Int128
    /// `st_ctim` in nanoseconds since 1970.
    public let changed: Int128

    init(_ info: stat) {
        identity = FileIdentity(info)
        modified = Int128(info.st_mtim.tv_sec) * 1_000_000_000 + Int128(info.st_mtim.tv_nsec)
        changed = Int128(info.st_ctim.tv_sec) * 1_000_000_000 + Int128(info.st_ctim.tv_nsec)
    }
}

extension FileDescriptor {
    /// The stamp of the file this descriptor is open on (`fstat(2)`).
    public func changeStamp(path: String) throws(SystemError) -> FileChangeStamp {
        var info = stat()
        _ = try Syscall.retrying("stat", path) { fstat(rawValue, &info) }
        return FileChangeStamp(info)
    }

    /// The greatest name `length` bytes long in the directory this descriptor is open on, in
    /// byte order; nil when there is none. Reads the directory from its start through this
    /// descriptor (`lseek` to 0, then `getdents64` until it returns 0): no second open of the
    /// directory, and no `fstat` as `opendir` makes. `path` names the directory in errors.
    /// Without `getdents64` in the C library, lists `path` as ``Sys/greatestName(in:length:)`` does.
    public func greatestName(length: Int, path: String) throws(SystemError) -> String? {
        guard let getdents = directoryEntries else { return try Sys.greatestName(in: path, length: length) }
        guard length > 0 else { throw SystemError(operation: "getdents64", path: path, errno: .invalidArgument) }
        _ = try Syscall.retrying("lseek", path) { lseek(rawValue, 0, SEEK_SET) }
        let capacity = 65_536
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        defer { buffer.deallocate() }
        let best = UnsafeMutablePointer<UInt8>.allocate(capacity: length)
        defer { best.deallocate() }
        // The kernel sizes each record as the name, its NUL and the header, rounded up to 8
        // bytes (fs/readdir.c, the same for every file system): other sizes hold other lengths.
        let wanted = (Self.direntNameOffset + length + 1 + 7) & ~7
        var found = false
        while true {
            let filled = try Syscall.retrying("getdents64", path) { getdents(rawValue, buffer, capacity) }
            if filled == 0 { break }
            // struct linux_dirent64: d_ino (8 bytes), d_off (8), d_reclen (2), d_type (1), d_name.
            var offset = 0
            while offset + Self.direntNameOffset <= filled {
                let recordLength = Int(buffer.loadUnaligned(fromByteOffset: offset + 16, as: UInt16.self))
                guard recordLength > Self.direntNameOffset, offset + recordLength <= filled else {
                    throw SystemError(operation: "getdents64", path: path, errno: .invalidArgument)
                }
                if recordLength == wanted {
                    // `length` + 1 bytes are inside the record. Compared first: a name that does not
                    // beat the best so far is skipped whatever its length; one that does must end
                    // exactly at `length` (its first NUL there).
                    let name = (buffer + offset + Self.direntNameOffset).assumingMemoryBound(to: UInt8.self)
                    if !found || memcmp(name, best, length) > 0, name[length] == 0, memchr(name, 0, length) == nil {
                        best.update(from: name, count: length)
                        found = true
                    }
                }
                offset += recordLength
            }
        }
        return found ? String(decoding: UnsafeBufferPointer(start: best, count: length), as: UTF8.self) : nil
    }

    /// Where `d_name` starts in a `linux_dirent64` record.
    private static let direntNameOffset = 19
}

extension Sys {
    /// The stamp of what `path` names now (`stat(2)`, following symlinks); nil when nothing is there.
    public static func changeStamp(of path: String) -> FileChangeStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileChangeStamp(info)
    }
}

/// glibc's `getdents64` (since 2.30), found at run time: declared only under `_GNU_SOURCE`,
/// which Swift's Glibc module is not built with (as with `syncfs` in FileDescriptor.swift).
private let directoryEntries: (@convention(c) (Int32, UnsafeMutableRawPointer?, Int) -> Int)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "getdents64") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (Int32, UnsafeMutableRawPointer?, Int) -> Int).self)
}()
