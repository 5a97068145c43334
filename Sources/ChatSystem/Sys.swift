#if canImport(Glibc)
    import Glibc
#endif

/// File system calls by path, each wrapped once (through ``Syscall``: EINTR retried, errno turned
/// into a ``SystemError``). Calls on an open descriptor are methods of ``FileDescriptor``.
public enum Sys {
    /// Opens `path`, fsyncs it and closes it (for directories after a rename or mkdir).
    public static func fsyncPath(_ path: String) throws(SystemError) {
        let fd = try FileDescriptor.openDirectory(path)
        try fd.fsync(path: path)
    }

    public static func rename(_ from: String, _ to: String) throws(SystemError) {
        try FaultInjection.check(.rename, to)
        _ = try Syscall.retrying("rename", to) { Glibc.rename(from, to) }
    }

    public static func unlink(_ path: String) throws(SystemError) {
        try FaultInjection.check(.unlink, path)
        _ = try Syscall.retrying("unlink", path) { Glibc.unlink(path) }
    }

    public static func removeDirectory(_ path: String) throws(SystemError) {
        _ = try Syscall.retrying("rmdir", path) { Glibc.rmdir(path) }
    }

    public static func mkdir(_ path: String, mode: mode_t = FileDescriptor.directoryMode) throws(SystemError) {
        _ = try Syscall.retrying("mkdir", path) { Glibc.mkdir(path, mode) }
    }

    /// Reads a whole file. Throws ``SystemError`` with ENOENT for a missing file.
    public static func readFile(_ path: String) throws(SystemError) -> [UInt8] {
        let fd = try FileDescriptor.open(path, .readOnly)
        // One read of size + 1 bytes usually returns the whole file and proves the end (a short
        // read of a regular file is its end); it reads on only if the file grew meanwhile. A
        // size of 0 is also what `fstat` says of /proc files, which hand out a record or a page
        // per read: those are read in 64 KiB reads until one returns nothing (a 64-byte first
        // read had made `/proc/locks` one line long, and `status` miss the sync worker's lock).
        let size = try fd.size(path: path)
        if size == 0 { return try fd.readToEnd(expected: 65_536, shortReadEnds: false, path: path) }
        return try fd.readToEnd(expected: size + 1, path: path)
    }

    /// What kind of thing is at a path, without following a final symlink; nil when nothing is.
    public enum FileKind: Sendable {
        case file, directory, symlink, other

        init(mode: mode_t) {
            switch mode & S_IFMT {
            case S_IFREG: self = .file
            case S_IFDIR: self = .directory
            case S_IFLNK: self = .symlink
            default: self = .other
            }
        }
    }

    public static func kind(of path: String) -> FileKind? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return FileKind(mode: info.st_mode)
    }

    /// The permission bits of `path` (following symlinks); nil when it does not exist.
    public static func mode(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// Sets the permission bits of `path` (`chmod(2)`, following symlinks: callers check the
    /// kind first).
    public static func chmod(_ path: String, _ mode: mode_t) throws(SystemError) {
        _ = try Syscall.retrying("chmod", path) { Glibc.chmod(path, mode) }
    }

    /// Device numbers and inode of a file, in the form `/proc/locks` prints them
    /// (`MAJOR:MINOR:INODE`, the device numbers in hex); nil when it does not exist.
    public static func lockIdentity(of path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        // glibc's major()/minor() macros, which do not import.
        let device = UInt64(info.st_dev)
        let major = String(((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff), radix: 16)
        let minor = String((device & 0xff) | ((device >> 12) & ~0xff), radix: 16)
        func pad(_ text: String) -> String { text.count < 2 ? "0" + text : text }
        return pad(major) + ":" + pad(minor) + ":" + String(info.st_ino)
    }

    /// The names in a directory, without `.` and `..`, in no particular order.
    public static func listDirectory(_ path: String) throws(SystemError) -> [String] {
        guard let directory = opendir(path) else {
            throw SystemError(operation: "opendir", path: path, errno: .current)
        }
        defer { closedir(directory) }
        return try names(in: directory, path: path)
    }

    /// The names a directory stream holds from where it stands, without `.` and `..`.
    static func names(in directory: OpaquePointer, path: String) throws(SystemError) -> [String] {
        // `d_name` is declared as 256 bytes, but glibc packs the records of a directory stream
        // into one buffer and a record ends right after its name's NUL: copying the whole field
        // (`entry.pointee.d_name`) reads past the last record of the buffer (AddressSanitizer:
        // heap-buffer-overflow). Read the name in place, up to its NUL, with `strlen`.
        guard let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else {
            throw SystemError(operation: "readdir", path: path, errno: .invalidArgument)
        }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The names in a directory, or none when the directory does not exist.
    public static func listDirectoryIfPresent(_ path: String) throws(SystemError) -> [String] {
        do {
            return try listDirectory(path)
        } catch {
            if error.isNotFound { return [] }
            throw error
        }
    }

    /// The greatest name `length` bytes long in a directory, in byte order; nil when there is
    /// none (or no directory). Compares each name where the directory stream holds it (`memcmp`),
    /// so a directory of a thousand names costs no thousand strings: for fixed-width names that
    /// sort as numbers, like the outbox's.
    public static func greatestName(in path: String, length: Int) throws(SystemError) -> String? {
        guard let directory = opendir(path) else {
            let error = SystemError(operation: "opendir", path: path, errno: .current)
            if error.isNotFound { return nil }
            throw error
        }
        defer { closedir(directory) }
        guard let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name), length > 0 else {
            throw SystemError(operation: "readdir", path: path, errno: .invalidArgument)
        }
        var greatest = [UInt8](repeating: 0, count: length)
        var found = false
        while let entry = readdir(directory) {
            // Read in place up to the NUL (see ``listDirectory(_:)`` for why not the whole field).
            let name = (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self)
            guard strlen(name) == length else { continue }
            let greater = greatest.withUnsafeMutableBytes { best in
                guard let base = best.baseAddress, !found || memcmp(name, base, length) > 0 else { return false }
                memcpy(base, name, length)
                return true
            }
            if greater { found = true }
        }
        return found ? String(decoding: greatest, as: UTF8.self) : nil
    }

    /// Creates a fresh private directory under `$TMPDIR` (or /tmp) with `mkdtemp(3)`.
    public static func makeTemporaryDirectory(prefix: String) throws(SystemError) -> String {
        let base = environment("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/" + prefix + "XXXXXX").utf8CString)
        let result = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        guard result != nil else { throw SystemError(operation: "mkdtemp", path: base, errno: .current) }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// This process's whole environment, read straight from `environ` (no Foundation: `chatdir`
    /// starts in a few milliseconds with it). A string without `=` is left out.
    public static func processEnvironment() -> [String: String] {
        var count = 0
        while environ[count] != nil { count += 1 }
        // Sized once: growing the table entry by entry was half of this function's cost.
        var environment = [String: String](minimumCapacity: count)
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            // The `=` found among bytes, not Characters: every command runs this at start.
            if let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) {
                environment[String(text[..<equals])] = String(text[text.utf8.index(after: equals)...])
            }
            entry += 1
        }
        return environment
    }

    /// The value of environment variable `name`, or nil when it is not set.
    public static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Whether process `pid` exists (for telling a live writer's temp file from a stale one).
    public static func processExists(_ pid: Int32) -> Bool {
        Glibc.kill(pid, 0) == 0 || Errno.current == .notPermitted
    }

    public static var currentProcessID: Int32 { getpid() }

    public static var currentUserID: UInt32 { getuid() }

    /// The absolute path of `path` with every symlink, `.` and `..` resolved (`realpath(3)`);
    /// nil when it does not exist.
    public static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The user ID owning `path` (not following a final symlink); nil when nothing is there.
    public static func owner(of path: String) -> UInt32? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_uid
    }
}
