#if canImport(Glibc)
    import Glibc
#endif

/// A directory only this user can reach, held open: every directory on the way from a trusted
/// anchor was checked to be a directory (not a symlink), owned by this user and closed to group
/// and others (mode 0700), whether it was just made or found; the files in it are reached
/// through the descriptor and never through a symlink.
///
/// For state that lives outside any store under a directory other users can write, such as
/// `/tmp` (sticky, so nobody can rename or remove what another user made, but anybody can make
/// a name first): a directory someone else made there, or a symlink they planted, could have
/// a victim's process read their files or append to the victim's own files through the link.
public struct PrivateDirectory: ~Copyable, Sendable {
    public let path: String
    private let fd: FileDescriptor

    private init(path: String, fd: consuming FileDescriptor) {
        self.path = path
        self.fd = fd
    }

    /// Opens `components` below `anchor` one after the other, each at the descriptor of the one
    /// before (`openat(2)` with `O_NOFOLLOW`), checking each (`fstat(2)`). With `create`,
    /// missing ones are made (`mkdirat(2)`, mode 0700); without, nil when one is missing.
    /// `anchor` itself is not checked: it is the caller's to trust (`/tmp`, `$XDG_RUNTIME_DIR`).
    /// - Throws: ``SystemError`` naming the first refused directory: a symlink or not a
    ///   directory, another owner (named with its uid), or group or other permission bits.
    public static func open(_ components: [String], under anchor: String, create: Bool) throws(SystemError)
        -> PrivateDirectory?
    {
        var fd = try FileDescriptor.open(anchor, .directory)
        var path = anchor
        for component in components {
            path = path == "/" ? "/" + component : path + "/" + component
            guard let next = try step(from: fd, to: component, path: path, create: create) else { return nil }
            fd = next
        }
        return PrivateDirectory(path: path, fd: fd)
    }

    /// The checked subdirectory `component` of `parent` (made when missing, with `create`);
    /// nil when missing without `create`. Opened first, so a directory that is there costs no
    /// `mkdirat` (`view` records its time to open through here on every run).
    private static func step(from parent: borrowing FileDescriptor, to component: String, path: String, create: Bool)
        throws(SystemError) -> FileDescriptor?
    {
        do {
            return try openChecking(component, in: parent, path: path)
        } catch {
            guard error.isNotFound else { throw error }
            guard create else { return nil }
        }
        do {
            try parent.makeDirectoryAt(component, path: path)
        } catch {
            if !error.isAlreadyExists { throw error }
        }
        return try openChecking(component, in: parent, path: path)
    }

    /// Opens `component` of `parent` without following a link and checks it (``check(_:path:)``).
    private static func openChecking(_ component: String, in parent: borrowing FileDescriptor, path: String)
        throws(SystemError) -> FileDescriptor
    {
        let next: FileDescriptor
        do throws(SystemError) {
            next = try parent.openAt(component, [.directory, .noFollow], path: path)
        } catch {
            if error.errno == .tooManyLinks || error.errno == .notDirectory {
                let found = Sys.kind(of: path) == .symlink ? "a symbolic link" : "a file"
                throw SystemError(
                    operation: "open", path: path, errno: error.errno,
                    detail: "\(found), not a directory; another user may have put it there: remove it")
            }
            throw error
        }
        try check(next, path: path)
        return next
    }

    /// Refuses a directory that is not this user's alone.
    private static func check(_ fd: borrowing FileDescriptor, path: String) throws(SystemError) {
        let status = try fd.status(path: path)
        let me = Sys.currentUserID
        if status.owner != me {
            throw SystemError(
                operation: "open", path: path, errno: .notPermitted,
                detail:
                    "owned by uid \(status.owner), not by this user (uid \(me)); another user may have made it to read or plant files here: remove it (it is not chatdir's) or set XDG_RUNTIME_DIR"
            )
        }
        if status.permissions & 0o077 != 0 {
            throw SystemError(
                operation: "open", path: path, errno: .notPermitted,
                detail:
                    "mode \(String(status.permissions, radix: 8)) lets others in (a private directory is 0700); files may have been planted in it: remove it"
            )
        }
    }

    /// Reads file `name` (not through a symlink), at most `limit` bytes; nil when it is missing.
    /// - Throws: ``SystemError``; EFBIG past the limit, ELOOP for a symlink.
    public func read(_ name: String, limit: Int) throws(SystemError) -> [UInt8]? {
        let file: FileDescriptor
        do throws(SystemError) {
            file = try fd.openAt(name, [.readOnly, .noFollow], path: path + "/" + name)
        } catch {
            if error.isNotFound { return nil }
            throw error
        }
        return try file.readToEnd(expected: min(limit, 4096), limit: limit, path: path + "/" + name)
    }

    /// Replaces file `name` by a temp file (`.<name>.<pid>.<random>.tmp`, made with O_EXCL) and
    /// a rename: a reader sees the old bytes or the new ones. Never fsynced.
    public func replace(_ name: String, with bytes: [UInt8]) throws(SystemError) {
        try fd.replaceWithoutSync(name, with: bytes, directory: path)
    }

    /// Appends `bytes` to file `name` (made 0600 when missing; never through a symlink) in one
    /// `write(2)`; returns the file's size after it.
    @discardableResult
    public func append(_ bytes: [UInt8], to name: String) throws(SystemError) -> Int {
        let file = try fd.openAt(name, [.writeOnly, .create, .append, .noFollow], path: path + "/" + name)
        try file.writeAll(bytes, path: path + "/" + name)
        return try file.size(path: path + "/" + name)
    }

    /// Removes file `name`; quiet when it is missing.
    public func remove(_ name: String) {
        fd.unlinkQuietly(name)
    }

    /// The names in the directory, without `.` and `..`, in no particular order.
    public func names() throws(SystemError) -> [String] {
        try fd.names(path: path)
    }
}
