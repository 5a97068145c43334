#if canImport(Glibc)
    import Glibc
#endif

/// An open file, directory or socket that this value owns: it is closed exactly once, by
/// ``close()`` or when the value goes out of scope. Non-copyable, so no second copy of the
/// number can be closed later, after the kernel handed it to another file (the double closes
/// of raw `Int32`s closed other threads' files).
///
/// Calls that need the number itself (`poll` over several descriptors, a set of live
/// connections another thread shuts down) borrow it through ``rawValue`` and must not outlive
/// the owner.
public struct FileDescriptor: ~Copyable, Sendable {
    public let rawValue: Int32

    /// Takes ownership of `rawValue` (a descriptor nobody else will close).
    public init(owning rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// `close(2)`, never retried on EINTR: on Linux the descriptor is gone either way.
    public consuming func close() {
        Syscall.close(rawValue)
        discard self
    }

    deinit {
        Syscall.close(rawValue)
    }
}

/// How ``FileDescriptor/open(_:_:mode:)`` opens: `O_RDONLY` unless a write mode is given.
public struct OpenOptions: OptionSet, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let readOnly = OpenOptions([])
    public static let writeOnly = OpenOptions(rawValue: O_WRONLY)
    public static let readWrite = OpenOptions(rawValue: O_RDWR)
    public static let create = OpenOptions(rawValue: O_CREAT)
    /// With ``create``: fail with EEXIST when the name is taken.
    public static let exclusive = OpenOptions(rawValue: O_EXCL)
    public static let truncate = OpenOptions(rawValue: O_TRUNC)
    public static let append = OpenOptions(rawValue: O_APPEND)
    public static let directory = OpenOptions(rawValue: O_DIRECTORY)
    /// Refuse a final symlink (ELOOP) instead of opening what it points to.
    public static let noFollow = OpenOptions(rawValue: O_NOFOLLOW)
}

extension FileDescriptor {
    /// Mode of the directories the store makes: the owner only.
    public static let directoryMode: mode_t = 0o700
    /// Mode of the files the store makes: the owner only.
    public static let fileMode: mode_t = 0o600

    /// `open(2)` with O_CLOEXEC added. Opens that create are where tests inject faults.
    public static func open(_ path: String, _ options: OpenOptions, mode: mode_t = fileMode) throws(SystemError)
        -> FileDescriptor
    {
        if options.contains(.create) { try FaultInjection.check(.open, path) }
        let fd = try Syscall.retrying("open", path) { Glibc.open(path, options.rawValue | O_CLOEXEC, mode) }
        return FileDescriptor(owning: fd)
    }

    /// Opens a directory for fsync, flock or the `…At` calls.
    public static func openDirectory(_ path: String) throws(SystemError) -> FileDescriptor {
        try open(path, .directory)
    }

    /// Opens (creating if needed, mode 0600) a file to hold a `flock(2)` on.
    public static func openLockFile(_ path: String) throws(SystemError) -> FileDescriptor {
        try open(path, [.readWrite, .create])
    }

    /// `openat(2)` relative to this directory, with O_CLOEXEC added; `path` names it in errors.
    public func openAt(_ name: String, _ options: OpenOptions, mode: mode_t = fileMode, path: String)
        throws(SystemError) -> FileDescriptor
    {
        if options.contains(.create) { try FaultInjection.check(.open, path) }
        let fd = try Syscall.retrying("open", path) { Glibc.openat(rawValue, name, options.rawValue | O_CLOEXEC, mode) }
        return FileDescriptor(owning: fd)
    }

    /// Creates a new file `name` in this directory for writing (mode 0600); EEXIST when the name is taken.
    public func createFile(_ name: String, path: String) throws(SystemError) -> FileDescriptor {
        try openAt(name, [.writeOnly, .create, .exclusive], path: path)
    }

    /// Replaces file `name` in this directory by a temp file (`.<name>.<pid>.<random>.tmp`,
    /// made with O_EXCL, mode 0600) and a rename, with no fsync: a reader sees the old bytes or
    /// the new ones, but a crash may take the newest back. For files that may be lost (signals
    /// between processes, figures). `directory` names this directory in errors.
    public func replaceWithoutSync(_ name: String, with bytes: [UInt8], directory: String) throws(SystemError) {
        let temp = ".\(name).\(Sys.currentProcessID).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let file = try createFile(temp, path: directory + "/" + temp)
        do throws(SystemError) {
            try file.writeAll(bytes, path: directory + "/" + temp)
        } catch {
            file.close()
            unlinkQuietly(temp)
            throw error
        }
        file.close()
        do throws(SystemError) {
            try renameAt(temp, name, path: directory + "/" + name)
        } catch {
            unlinkQuietly(temp)
            throw error
        }
    }

    /// Writes every byte, looping over partial writes and EINTR.
    public func writeAll(_ bytes: [UInt8], path: String) throws(SystemError) {
        try FaultInjection.check(.write, path)
        try Syscall.writeAll(rawValue, bytes, path: path)
    }

    /// One `read(2)` into `buffer` from `offset`: the bytes read, 0 at the end.
    public func read(into buffer: inout [UInt8], from offset: Int = 0, path: String) throws(SystemError) -> Int {
        try Syscall.read(rawValue, into: &buffer, from: offset, path: path)
    }

    /// The rest of a file: one read into a buffer of `expected` bytes made without zeroing it,
    /// then, while reads fill their buffers, reads as large as what is read so far (doubling).
    /// The store's small files and segments are read this way: zeroing a segment-sized buffer
    /// first was 5 % of opening a conversation.
    ///
    /// With `shortReadEnds` (a regular file), a read that does not fill the buffer is the end.
    /// Without it (`/proc/locks` and the like, which `fstat` calls empty and which return one
    /// record per read, or as many as fit), only a read of 0 bytes is.
    ///
    /// `limit` bounds what is read, whatever the file is: past `limit` bytes the read stops and
    /// throws EFBIG (``SystemError/isTooLarge``), having held at most about twice the limit.
    public func readToEnd(expected: Int, limit: Int = .max, shortReadEnds: Bool = true, path: String)
        throws(SystemError) -> [UInt8]
    {
        // One byte past the limit tells a file of exactly `limit` bytes from a larger one.
        let ceiling = limit < Int.max ? limit + 1 : Int.max
        let capacity = min(max(expected, 64), ceiling)
        var bytes = try readOnce(upTo: capacity, path: path)
        if bytes.isEmpty || (shortReadEnds && bytes.count < capacity) { return try within(limit, bytes, path: path) }
        while bytes.count <= limit {
            // Each read asks for as much as there is so far, so the reads double as they fill.
            let asked = min(max(bytes.count, capacity), ceiling - bytes.count)
            let more = try readOnce(upTo: asked, path: path)
            bytes.append(contentsOf: more)
            if more.isEmpty || (shortReadEnds && more.count < asked && bytes.count <= limit) { return bytes }
        }
        return try within(limit, bytes, path: path)
    }

    private func within(_ limit: Int, _ bytes: [UInt8], path: String) throws(SystemError) -> [UInt8] {
        guard bytes.count > limit else { return bytes }
        throw SystemError(operation: "read", path: path, errno: .fileTooLarge)
    }

    /// One `read(2)` of at most `count` bytes into a new buffer that is not zeroed first (a
    /// debug build filled an 8 MB outbox file's doubled buffers a zero at a time: most of a
    /// test's 26 s).
    private func readOnce(upTo count: Int, path: String) throws(SystemError) -> [UInt8] {
        var failure: SystemError?
        let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            initialized = 0
            do throws(SystemError) {
                initialized = try Syscall.read(rawValue, into: UnsafeMutableRawBufferPointer(buffer), path: path)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// The size in bytes (`fstat(2)`).
    public func size(path: String) throws(SystemError) -> Int {
        var info = stat()
        _ = try Syscall.retrying("stat", path) { fstat(rawValue, &info) }
        return Int(info.st_size)
    }

    /// `fsync(2)`. A failed fsync is reported, never retried: the kernel may have dropped the pages.
    public func fsync(path: String) throws(SystemError) {
        try FaultInjection.check(.fsync, path)
        _ = try Syscall.retrying("fsync", path) { Glibc.fsync(rawValue) }
    }

    /// `syncfs(2)`: writes back and commits everything dirty on this descriptor's file system,
    /// in one journal commit (a group of writes made durable together; see ChatStore's
    /// `GroupCommit`). Like ``fsync(path:)``, a failure is reported, never retried.
    public func syncFileSystem(path: String) throws(SystemError) {
        try FaultInjection.check(.fsync, path)
        guard let syncfs = fileSystemSync else {
            // No syncfs in this libc: sync(2) writes back every file system, this one among them.
            Glibc.sync()
            return
        }
        _ = try Syscall.retrying("syncfs", path) { syncfs(rawValue) }
    }

    /// `renameat(2)` within this directory, replacing `to`.
    public func renameAt(_ from: String, _ to: String, path: String) throws(SystemError) {
        try FaultInjection.check(.rename, path)
        _ = try Syscall.retrying("rename", path) { Glibc.renameat(rawValue, from, rawValue, to) }
    }

    /// `linkat(2)`: gives the file `from` a second name `to`; fails with EEXIST instead of replacing.
    public func linkAt(_ from: String, _ to: String, path: String) throws(SystemError) {
        try FaultInjection.check(.link, path)
        _ = try Syscall.retrying("link", path) { Glibc.linkat(rawValue, from, rawValue, to, 0) }
    }

    /// `unlinkat(2)` of a file in this directory.
    public func unlinkAt(_ name: String, path: String) throws(SystemError) {
        try FaultInjection.check(.unlink, path)
        _ = try Syscall.retrying("unlink", path) { Glibc.unlinkat(rawValue, name, 0) }
    }

    /// Best-effort `unlinkat(2)` for cleaning up after another failure; its own failure is ignored.
    public func unlinkQuietly(_ name: String) {
        _ = Glibc.unlinkat(rawValue, name, 0)
    }

    /// `flock(2)` exclusive and non-blocking; throws with ``SystemError/isWouldBlock`` when held elsewhere.
    public func lockExclusive(path: String) throws(SystemError) {
        _ = try Syscall.retrying("flock", path) { Self.lockFile(rawValue, LOCK_EX | LOCK_NB) }
    }

    /// `flock(2)` exclusive, waiting for the holder to let go.
    public func lockExclusiveWaiting(path: String) throws(SystemError) {
        _ = try Syscall.retrying("flock", path) { Self.lockFile(rawValue, LOCK_EX) }
    }

    /// `flock(2)` LOCK_UN: lets go of the lock on the open file description at once, even while
    /// a child forked a moment ago still shares the descriptor (until its exec closes it).
    public func unlock() {
        _ = Self.lockFile(rawValue, LOCK_UN)
    }

    // `Glibc.flock` names the struct too; an unqualified call inside a function finds the function.
    private static func lockFile(_ fd: Int32, _ operation: Int32) -> Int32 { flock(fd, operation) }
}

/// glibc's `syncfs` (since 2.14), found at run time: its header declares it only under
/// `_GNU_SOURCE`, which Swift's Glibc module is not built with (as with ChildProcess's closefrom).
private let fileSystemSync: (@convention(c) (Int32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "syncfs") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (Int32) -> Int32).self)
}()
