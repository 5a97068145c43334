#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// The store's only Glibc user besides Syscalls.swift: inotify, poll, a wake-up pipe and a
// dedicated thread, each wrapped once (EINTR retried, errno turned into ``SystemError``), so the
// watcher above them reads like a state machine.

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

    /// What a directory watch of the store asks for: committed writes (rename into place, close
    /// after writing, link, unlink) and the directory itself going away.
    public static let storeWatch: InotifyMask = [.closeWrite, .movedFrom, .movedTo, .create, .delete, .deleteSelf, .moveSelf, .onlyDirectory]
}

/// One event read from an inotify descriptor: the watch it belongs to, what happened, and the
/// name inside the watched directory ("" for events on the directory itself).
public struct InotifyEvent: Hashable, Sendable {
    public var watch: Int32
    public var mask: InotifyMask
    public var cookie: UInt32
    public var name: String

    public init(watch: Int32, mask: InotifyMask, cookie: UInt32 = 0, name: String = "") {
        self.watch = watch
        self.mask = mask
        self.cookie = cookie
        self.name = name
    }

    /// The size of `struct inotify_event` before its name.
    static let headerSize = 16

    /// Parses the records `read(2)` returned: a 16-byte header `{wd, mask, cookie, len}`, then
    /// `len` NUL-padded name bytes. A truncated record at the end is dropped (the kernel never
    /// splits one, so it means a short buffer, which ``Inotify/bufferSize`` rules out).
    public static func parse(_ bytes: UnsafeRawBufferPointer) -> [InotifyEvent] {
        var events: [InotifyEvent] = []
        var offset = 0
        while offset + headerSize <= bytes.count {
            let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let cookie = bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameStart = offset + headerSize
            guard nameStart + length <= bytes.count else { break }
            let nameBytes = UnsafeRawBufferPointer(rebasing: bytes[nameStart..<(nameStart + length)])
            let name = String(decoding: nameBytes.prefix(while: { $0 != 0 }), as: UTF8.self)
            events.append(InotifyEvent(watch: watch, mask: InotifyMask(rawValue: mask), cookie: cookie, name: name))
            offset = nameStart + length
        }
        return events
    }
}

/// `inotify(7)` calls, wrapped once.
public enum Inotify {
    /// Bytes per `read(2)`: many events at once, and always more than one event's maximum
    /// (`16 + NAME_MAX + 1`), which a smaller buffer would fail with EINVAL.
    public static let bufferSize = 64 * 1024

    /// `inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`: a non-blocking descriptor, so a read after
    /// `poll(2)` drains the queue and stops with EAGAIN instead of waiting.
    public static func open() throws(SystemError) -> Int32 {
        let fd = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard fd >= 0 else {
            throw SystemError(operation: "inotify_init1", path: "(no path; at most /proc/sys/fs/inotify/max_user_instances per user)", errno: errno)
        }
        return fd
    }

    /// `inotify_add_watch(2)`; returns the watch descriptor (the same one again for a path
    /// already watched).
    public static func addWatch(_ fd: Int32, path: String, mask: InotifyMask) throws(SystemError) -> Int32 {
        let watch = inotify_add_watch(fd, path, mask.rawValue)
        guard watch >= 0 else { throw SystemError(operation: "inotify_add_watch", path: path, errno: errno) }
        return watch
    }

    /// `inotify_rm_watch(2)`; a watch the kernel already dropped (EINVAL) is not an error.
    public static func removeWatch(_ fd: Int32, _ watch: Int32) {
        _ = inotify_rm_watch(fd, watch)
    }

    /// Reads queued events into `buffer`; returns the bytes read, 0 when the queue is empty.
    public static func read(_ fd: Int32, into buffer: inout [UInt8]) throws(SystemError) -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count >= 0 { return count }
            let code = errno
            if code == EINTR { continue }
            if code == EAGAIN || code == EWOULDBLOCK { return 0 }
            throw SystemError(operation: "read", path: "(inotify descriptor)", errno: code)
        }
    }
}

extension Sys {
    /// `pipe(2)` with both ends close-on-exec and non-blocking: a wake-up pipe that tells a
    /// thread blocked in `poll(2)` to look at its flags. (`pipe2` is not imported without _GNU_SOURCE.)
    public static func wakePipe() throws(SystemError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [-1, -1]
        let result = fds.withUnsafeMutableBufferPointer { pipe($0.baseAddress) }
        guard result == 0 else { throw SystemError(operation: "pipe", path: "(wake-up pipe)", errno: errno) }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        return (fds[0], fds[1])
    }

    /// Writes one byte to a wake-up pipe; a full pipe already holds a wake-up, so errors are ignored.
    public static func wake(_ fd: Int32) {
        var byte: UInt8 = 1
        _ = Glibc.write(fd, &byte, 1)
    }

    /// Empties a non-blocking pipe.
    public static func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 64)
        while buffer.withUnsafeMutableBytes({ Glibc.read(fd, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// `poll(2)` for readability of `fds`; returns which are readable (or hung up), all false on
    /// timeout. `timeout` is in milliseconds, -1 waits for ever. EINTR counts as a timeout.
    public static func pollReadable(_ fds: [Int32], timeout: Int32) throws(SystemError) -> [Bool] {
        var entries = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let result = entries.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, nfds_t($0.count), timeout) }
        if result < 0 {
            if errno == EINTR { return fds.map { _ in false } }
            throw SystemError(operation: "poll", path: "(watched descriptors)", errno: errno)
        }
        return entries.map { $0.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 }
    }

    /// Monotonic time in nanoseconds (CLOCK_MONOTONIC), for measuring latency.
    public static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
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
}

/// A dedicated OS thread for blocking work (a `poll(2)` loop), so it never occupies the
/// cooperative pool or libdispatch's small global pool (see LINUX-NOTES.md, concurrency).
final class DedicatedThread: @unchecked Sendable {
    // Written once in `start` before any other thread can see it; read by `join` afterwards.
    private var thread: pthread_t = 0
    private var started = false

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    /// Starts `body` on a new thread. Throws when the system has no thread to spare.
    func start(_ body: @escaping @Sendable () -> Void) throws(SystemError) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        let result = pthread_create(&thread, nil, { pointer in
            guard let pointer else { return nil }
            let body = Unmanaged<Body>.fromOpaque(pointer).takeRetainedValue()
            body.run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw SystemError(operation: "pthread_create", path: "(watcher thread)", errno: result)
        }
        started = true
    }

    /// Whether the caller is this thread (joining itself would deadlock).
    var isCurrent: Bool { started && pthread_equal(thread, pthread_self()) != 0 }

    /// Waits for the thread to finish; from the thread itself, detaches it instead.
    func join() {
        guard started else { return }
        if isCurrent {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
        started = false
    }
}
