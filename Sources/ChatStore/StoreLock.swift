import ChatSystem

/// The store's single-writer lock: `flock(2)` on `.lock` in the store root.
///
/// Held by the one process that writes segments and positions (the sync worker, `seed`).
/// The kernel releases it when the process exits, even on SIGKILL, so a crash never leaves
/// the store locked. The file is never unlinked: a process that opened an unlinked lock file
/// would lock nothing.
public final class StoreLock: Sendable {
    private let fd: FileDescriptor
    public let path: String

    /// Takes the lock or throws ``StoreError/locked(path:holder:)`` at once if another process has it.
    public init(storeRoot: String) throws(StoreError) {
        let path = storeRoot + "/" + StoreLayout.lock
        let fd: FileDescriptor
        do {
            fd = try FileDescriptor.openLockFile(path)
        } catch {
            throw .system(error)
        }
        do {
            try fd.lockExclusive(path: path)
        } catch {
            fd.close()
            if error.isWouldBlock {
                throw .locked(path: storeRoot, holder: Self.holderDescription(storeRoot: storeRoot))
            }
            throw .system(error)
        }
        // Stored only once the lock is held: a class whose every property is set runs its deinit
        // even when its init throws, and that deinit would unlock a lock this value never took.
        self.path = path
        self.fd = fd
    }

    /// Whether some process holds the lock on `storeRoot` right now (takes and drops it to find out).
    public static func isHeld(storeRoot: String) -> Bool {
        do {
            _ = try StoreLock(storeRoot: storeRoot)
            return false
        } catch {
            if case .locked = error { return true }
            return false
        }
    }

    deinit {
        // Unlock before closing: `close` alone frees the lock only once every copy of the
        // descriptor is closed, and a child this process is starting on another thread holds a
        // copy until its exec (the next writer here was refused "held by another process").
        fd.unlock()
        // `fd` closes itself once, as the last stored property goes.
    }
}

extension StoreLock {
    /// The process ID of the sync worker holding the lock on `storeRoot`, or nil when none does.
    ///
    /// Looks the lock file up in `/proc/locks` instead of trying the lock: taking it even for a
    /// moment could make a sync worker starting at that instant fail with "locked", and opening
    /// `.lock` would wake every inotify watcher of the store root. Linux only; elsewhere nil.
    ///
    /// The kernel hands the table out a page per `read(2)` and finds its place again by counting
    /// records, so while other processes take and drop locks between two reads a line can be
    /// skipped: a table that does not list the lock is read again, up to five times in all.
    public static func holder(storeRoot: String) -> Int32? {
        guard let identity = Sys.lockIdentity(of: storeRoot + "/" + StoreLayout.lock) else { return nil }
        for _ in 0..<5 {
            guard let table = try? Sys.readFile("/proc/locks") else { return nil }
            // "1: FLOCK  ADVISORY  WRITE 9940 fe:00:16220310 0 EOF"; waiters have "->" after the number.
            for line in table.split(separator: UInt8(ascii: "\n")) {
                let fields = line.split(separator: UInt8(ascii: " ")).map { String(decoding: $0, as: UTF8.self) }
                guard fields.count >= 6, fields[1] == "FLOCK", fields[5] == identity else { continue }
                return Int32(fields[4])
            }
        }
        return nil
    }

    /// The process holding the lock on `storeRoot` as a person can act on it: its pid and its
    /// command line from `/proc/PID/cmdline` (`pid 4242: chatdir sync --live --store /home/a/chats`),
    /// or the pid alone when the command line cannot be read; nil when no holder is found.
    static func holderDescription(storeRoot: String) -> String? {
        guard let pid = holder(storeRoot: storeRoot) else { return nil }
        guard let bytes = try? Sys.readFile("/proc/\(pid)/cmdline"), !bytes.isEmpty else { return "pid \(pid)" }
        // Arguments end in NUL; control characters from a path are not sent to a terminal.
        let words = bytes.split(separator: 0).map { word in
            String(decoding: word, as: UTF8.self).map { $0.isASCII && ($0.asciiValue ?? 0) < 0x20 ? "?" : String($0) }
                .joined()
        }
        var command = words.joined(separator: " ")
        if let program = words.first, let name = program.split(separator: "/").last, program.contains("/") {
            command = String(name) + command.dropFirst(program.count)
        }
        return "pid \(pid): " + (command.count > 200 ? String(command.prefix(200)) + "…" : command)
    }
}
