#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

/// A failed system call: which call, on which path, and errno.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32

    public var description: String {
        "\(operation) \(path): \(String(cString: strerror(errno)))"
    }

    public var isNotFound: Bool { errno == ENOENT }
    public var isAlreadyExists: Bool { errno == EEXIST }
    public var isWouldBlock: Bool { errno == EWOULDBLOCK || errno == EAGAIN }
}

/// The one file that talks to Glibc for files: each call wrapped once, retried on EINTR, errno
/// turned into a ``SystemError``. Everything else in the store calls these.
public enum Sys {
    public static let directoryMode: mode_t = 0o700
    public static let fileMode: mode_t = 0o600

    @inline(__always)
    private static func retrying<T: BinaryInteger>(_ operation: String, _ path: String, _ call: () -> T) throws(SystemError) -> T {
        while true {
            let result = call()
            if result >= 0 { return result }
            let code = Glibc.errno
            if code == EINTR { continue }
            throw SystemError(operation: operation, path: path, errno: code)
        }
    }

    /// `open(2)` with O_CLOEXEC added.
    public static func open(_ path: String, _ flags: Int32, mode: mode_t = fileMode) throws(SystemError) -> Int32 {
        if flags & O_CREAT != 0 { try FaultInjection.check(.open, path) }
        return try retrying("open", path) { Glibc.open(path, flags | O_CLOEXEC, mode) }
    }

    /// `openat(2)` relative to a directory descriptor, with O_CLOEXEC added.
    public static func openAt(_ directory: Int32, _ name: String, _ flags: Int32, mode: mode_t = fileMode, path: String) throws(SystemError) -> Int32 {
        if flags & O_CREAT != 0 { try FaultInjection.check(.open, path) }
        return try retrying("open", path) { Glibc.openat(directory, name, flags | O_CLOEXEC, mode) }
    }

    /// Opens (creating if needed, mode 0600) a file to hold a `flock(2)` on.
    public static func openLockFile(_ path: String) throws(SystemError) -> Int32 {
        try open(path, O_RDWR | O_CREAT)
    }

    /// Opens a directory for fsync, flock or openat.
    public static func openDirectory(_ path: String) throws(SystemError) -> Int32 {
        try open(path, O_RDONLY | O_DIRECTORY)
    }

    public static func close(_ fd: Int32) {
        // Never retry close on EINTR: on Linux the descriptor is already gone.
        _ = Glibc.close(fd)
    }

    /// Writes every byte, looping over partial writes and EINTR.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(SystemError) {
        try FaultInjection.check(.write, path)
        var offset = 0
        while offset < bytes.count {
            let written = try retrying("write", path) {
                bytes.withUnsafeBytes { buffer in Glibc.write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset) }
            }
            offset += written
        }
    }

    /// `fsync(2)`. A failed fsync is reported, never retried: the kernel may have dropped the pages.
    public static func fsync(_ fd: Int32, path: String) throws(SystemError) {
        try FaultInjection.check(.fsync, path)
        _ = try retrying("fsync", path) { Glibc.fsync(fd) }
    }

    /// Opens `path`, fsyncs it and closes it (for directories after a rename or mkdir).
    public static func fsyncPath(_ path: String) throws(SystemError) {
        let fd = try openDirectory(path)
        defer { close(fd) }
        try fsync(fd, path: path)
    }

    public static func renameAt(_ directory: Int32, _ from: String, _ to: String, path: String) throws(SystemError) {
        try FaultInjection.check(.rename, path)
        _ = try retrying("rename", path) { Glibc.renameat(directory, from, directory, to) }
    }

    /// `linkat(2)`: gives the file `from` a second name `to`; fails with EEXIST instead of replacing.
    public static func linkAt(_ directory: Int32, _ from: String, _ to: String, path: String) throws(SystemError) {
        try FaultInjection.check(.link, path)
        _ = try retrying("link", path) { Glibc.linkat(directory, from, directory, to, 0) }
    }

    /// Creates a new file `name` in a directory for writing; EEXIST when the name is taken.
    public static func createFile(_ directory: Int32, _ name: String, path: String) throws(SystemError) -> Int32 {
        try openAt(directory, name, O_WRONLY | O_CREAT | O_EXCL, mode: fileMode, path: path)
    }

    /// Best-effort `unlinkat(2)` for cleaning up after another failure; its own failure is ignored.
    public static func unlinkQuietly(_ directory: Int32, _ name: String) {
        _ = Glibc.unlinkat(directory, name, 0)
    }

    public static func rename(_ from: String, _ to: String) throws(SystemError) {
        try FaultInjection.check(.rename, to)
        _ = try retrying("rename", to) { Glibc.rename(from, to) }
    }

    public static func unlink(_ path: String) throws(SystemError) {
        try FaultInjection.check(.unlink, path)
        _ = try retrying("unlink", path) { Glibc.unlink(path) }
    }

    public static func unlinkAt(_ directory: Int32, _ name: String, path: String) throws(SystemError) {
        try FaultInjection.check(.unlink, path)
        _ = try retrying("unlink", path) { Glibc.unlinkat(directory, name, 0) }
    }

    public static func removeDirectory(_ path: String) throws(SystemError) {
        _ = try retrying("rmdir", path) { Glibc.rmdir(path) }
    }

    public static func mkdir(_ path: String, mode: mode_t = directoryMode) throws(SystemError) {
        _ = try retrying("mkdir", path) { Glibc.mkdir(path, mode) }
    }

    /// `flock(2)` exclusive and non-blocking; throws with ``SystemError/isWouldBlock`` when held elsewhere.
    public static func lockExclusive(_ fd: Int32, path: String) throws(SystemError) {
        _ = try retrying("flock", path) { lockFile(fd, LOCK_EX | LOCK_NB) }
    }

    // `Glibc.flock` names the struct too; an unqualified call inside a function finds the function.
    private static func lockFile(_ fd: Int32, _ operation: Int32) -> Int32 { flock(fd, operation) }

    /// `flock(2)` LOCK_UN: lets go of the lock on the open file description at once, even while
    /// a child forked a moment ago still shares the descriptor (until its exec closes it).
    public static func unlock(_ fd: Int32) {
        _ = lockFile(fd, LOCK_UN)
    }

    /// `flock(2)` exclusive, waiting for the holder to let go.
    public static func lockExclusiveWaiting(_ fd: Int32, path: String) throws(SystemError) {
        _ = try retrying("flock", path) { lockFile(fd, LOCK_EX) }
    }

    /// Reads a whole file. Throws ``SystemError`` with ENOENT for a missing file.
    public static func readFile(_ path: String) throws(SystemError) -> [UInt8] {
        let fd = try open(path, O_RDONLY)
        defer { close(fd) }
        var info = stat()
        _ = try retrying("stat", path) { fstat(fd, &info) }
        // One read of size + 1 bytes usually returns the whole file and proves the end (a short
        // read of a regular file is its end); loop only if the file grew meanwhile.
        var result = [UInt8](repeating: 0, count: Int(info.st_size) + 1)
        var filled = 0
        while true {
            if filled == result.count { result.append(contentsOf: [UInt8](repeating: 0, count: max(4096, result.count))) }
            let count = try retrying("read", path) {
                result.withUnsafeMutableBytes { buffer in Glibc.read(fd, buffer.baseAddress.map { $0 + filled }, buffer.count - filled) }
            }
            filled += count
            if count == 0 || filled < result.count {
                result.removeLast(result.count - filled)
                return result
            }
        }
    }


    /// What kind of thing is at a path, without following a final symlink; nil when nothing is.
    public enum FileKind: Sendable { case file, directory, symlink, other }

    public static func kind(of path: String) -> FileKind? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return .file
        case S_IFDIR: return .directory
        case S_IFLNK: return .symlink
        default: return .other
        }
    }

    /// The permission bits of `path` (following symlinks); nil when it does not exist.
    public static func mode(of path: String) -> mode_t? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// The names in a directory, without `.` and `..`, in no particular order.
    public static func listDirectory(_ path: String) throws(SystemError) -> [String] {
        guard let directory = opendir(path) else {
            throw SystemError(operation: "opendir", path: path, errno: Glibc.errno)
        }
        defer { closedir(directory) }
        // `d_name` is declared as 256 bytes, but glibc packs the records of a directory stream
        // into one buffer and a record ends right after its name's NUL: copying the whole field
        // (`entry.pointee.d_name`) reads past the last record of the buffer (AddressSanitizer:
        // heap-buffer-overflow). Read the name in place, up to its NUL, with `strlen`.
        guard let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) else {
            throw SystemError(operation: "readdir", path: path, errno: EINVAL)
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

    /// Creates a fresh private directory under `$TMPDIR` (or /tmp) with `mkdtemp(3)`.
    public static func makeTemporaryDirectory(prefix: String) throws(SystemError) -> String {
        let base = getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/" + prefix + "XXXXXX").utf8CString)
        let result = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        guard result != nil else { throw SystemError(operation: "mkdtemp", path: base, errno: Glibc.errno) }
        return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Where `needle` first occurs in `haystack` at or after `from`; nil when it does not. An
    /// empty needle is found at `from`. Uses glibc's vectorised `memchr(3)` for the first byte
    /// and `memcmp(3)` for the rest (`memmem` is a GNU extension Swift does not import).
    public static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard from <= haystack.count else { return nil }
        guard let first = needle.first else { return from }
        return haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { pattern -> Int? in
                guard let base = hay.baseAddress, let patternBase = pattern.baseAddress else { return nil }
                var start = from
                let lastStart = hay.count - pattern.count
                while start <= lastStart {
                    guard let hit = memchr(base + start, Int32(first), lastStart - start + 1) else { return nil }
                    let offset = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + offset, patternBase, pattern.count) == 0 { return offset }
                    start = offset + 1
                }
                return nil
            }
        }
    }

    /// Whether process `pid` exists (for telling a live writer's temp file from a stale one).
    public static func processExists(_ pid: Int32) -> Bool {
        Glibc.kill(pid, 0) == 0 || Glibc.errno == EPERM
    }

    public static var currentProcessID: Int32 { getpid() }
}

/// Test-only fault injection, kept next to the calls it breaks: makes `open(2)` with O_CREAT,
/// `write(2)`, `fsync(2)`, `rename(2)`, `link(2)` or `unlink(2)` fail as a full disk (ENOSPC) or
/// an I/O error (EIO) would. A rule covers the paths under one prefix (a test's own temp
/// directory, or one exact path), so tests running in parallel never meet each other's faults.
/// A rule counts the calls it matches: a test runs an operation once with a counting rule to
/// learn how many calls it makes, then again for each N with a rule that fails the Nth.
/// Nothing in the shipped code sets a rule; with none set, the cost is one atomic load.
public enum FaultInjection {
    /// The wrapped calls a rule can break. The raw value is the word errors use.
    public enum Operation: String, Sendable, CaseIterable {
        case open, write, fsync, rename, link, unlink
    }

    /// What a rule does: which calls it matches and which of them fail.
    public struct Rule: Sendable {
        /// Paths equal to this, or below it when ``exact`` is false.
        public var path: String
        public var exact: Bool
        public var operations: Set<Operation>
        /// The matching call (1-based) that fails first; nil only counts.
        public var failAt: Int?
        /// Whether every matching call from ``failAt`` on fails (a disk that stays full), or only that one.
        public var persistent: Bool
        public var errno: Int32
        /// Matching calls made so far.
        public var calls = 0
        /// Calls that were failed.
        public var failed = 0

        func matches(_ operation: Operation, _ candidate: String) -> Bool {
            guard operations.contains(operation) else { return false }
            if exact { return candidate == path }
            return candidate == path || (candidate.hasPrefix(path) && candidate.utf8.dropFirst(path.utf8.count).first == UInt8(ascii: "/"))
        }
    }

    private static let rules = Lock<[String: Rule]>([:])
    private static let active = Atomic<Bool>(false)

    /// Installs (replacing any for the same path) a rule for every path under `directory`: the
    /// `failAt`th call of `operations` fails with `errno` (and every later one when `persistent`);
    /// with `failAt` nil the calls are only counted.
    public static func inject(_ operations: Set<Operation>, under directory: String, failAt: Int?, persistent: Bool = false, errno: Int32 = EIO) {
        install(Rule(path: directory, exact: false, operations: operations, failAt: failAt, persistent: persistent, errno: errno))
    }

    /// From now on, fsync of exactly `path` succeeds `successes` more times, then fails with `errno`.
    public static func failFsync(of path: String, after successes: Int = 0, errno: Int32 = EIO) {
        install(Rule(path: path, exact: true, operations: [.fsync], failAt: successes + 1, persistent: true, errno: errno))
    }

    /// Removes the rule for `path` (a directory given to ``inject(_:under:failAt:persistent:errno:)``
    /// or a path given to ``failFsync(of:after:errno:)``) and returns it, with its counts.
    @discardableResult
    public static func clear(_ path: String) -> Rule? {
        rules.withLock { rules -> Rule? in
            let removed = rules.removeValue(forKey: path)
            active.store(!rules.isEmpty, ordering: .releasing)
            return removed
        }
    }

    /// Runs `body` with this thread's calls neither counted nor failed by any rule: for a test
    /// that sets up files (a send) while the code under test (a worker on other threads) is
    /// faulted, so the numbering of the worker's calls does not depend on timing.
    public static func bypassing<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let thread = pthread_self()
        exemptThreads.withLock { _ = $0.insert(thread) }
        defer { exemptThreads.withLock { _ = $0.remove(thread) } }
        return try body()
    }

    private static let exemptThreads = Lock<Set<pthread_t>>([])

    /// The rule for `path` as it stands (its counts so far), or nil.
    public static func rule(_ path: String) -> Rule? {
        rules.withLock { $0[path] }
    }

    private static func install(_ rule: Rule) {
        rules.withLock { rules in
            rules[rule.path] = rule
            active.store(true, ordering: .releasing)
        }
    }

    /// The hook in each wrapper: throws the injected error when a rule fails this call.
    @inline(__always)
    static func check(_ operation: Operation, _ path: String) throws(SystemError) {
        guard active.load(ordering: .acquiring) else { return }
        guard !exemptThreads.withLock({ $0.contains(pthread_self()) }) else { return }
        if let code = fault(operation, path) { throw SystemError(operation: operation.rawValue, path: path, errno: code) }
    }

    private static func fault(_ operation: Operation, _ path: String) -> Int32? {
        rules.withLock { rules -> Int32? in
            var code: Int32?
            for (key, var rule) in rules where rule.matches(operation, path) {
                rule.calls += 1
                if let first = rule.failAt, rule.calls == first || (rule.persistent && rule.calls > first) {
                    rule.failed += 1
                    code = code ?? rule.errno
                }
                rules[key] = rule
            }
            return code
        }
    }
}
