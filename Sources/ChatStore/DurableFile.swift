import ChatSystem

/// Atomic, durable replacement of whole files: the store's only way to write.
///
/// temp file in the target's directory (O_EXCL, mode 0600) → write all → fsync → close →
/// rename over the target → fsync the directory. A reader sees the old file or the new one,
/// never a mix; after `write` returns the new bytes survive a crash or power loss.
/// Temp names are `.<target>.<pid>.<random>.tmp`: hidden from readers, and the pid tells a
/// live writer's temp file from one a killed writer left behind (see ``removeStaleTemporaries(in:)``).
public enum DurableFile {
    /// Replaces `name` in `directory` with `bytes`.
    public static func write(_ bytes: [UInt8], to name: String, in directory: String) throws(SystemError) {
        if let group = GroupCommit.current { return group.stage(bytes, as: name, in: directory) }
        let dirfd = try FileDescriptor.openDirectory(directory)
        try write(bytes, to: name, inDirectoryFD: dirfd, directory: directory)
        try dirfd.fsync(path: directory)
    }

    /// Writes several files of one directory, then fsyncs the directory once: one durable commit.
    public static func write(_ files: [(name: String, bytes: [UInt8])], in directory: String) throws(SystemError) {
        guard !files.isEmpty else { return }
        if let group = GroupCommit.current {
            return files.forEach { group.stage($0.bytes, as: $0.name, in: directory) }
        }
        let dirfd = try FileDescriptor.openDirectory(directory)
        for file in files {
            try write(file.bytes, to: file.name, inDirectoryFD: dirfd, directory: directory)
        }
        try dirfd.fsync(path: directory)
    }

    /// Creates `name` in `directory` only if nothing has that name: the temp file gets its final
    /// name through `link(2)`, which never replaces. Throws EEXIST when the name is taken.
    public static func create(_ bytes: [UInt8], as name: String, in directory: String) throws(SystemError) {
        let dirfd = try FileDescriptor.openDirectory(directory)
        try create(bytes, as: name, inDirectoryFD: dirfd, directory: directory)
    }

    /// ``create(_:as:in:)`` in the directory `dirfd` has open (`directory` names it in errors):
    /// for a caller that already holds it, locked, so the directory is not opened twice.
    public static func create(
        _ bytes: [UInt8], as name: String, inDirectoryFD dirfd: borrowing FileDescriptor, directory: String
    ) throws(SystemError) {
        let temp = try writeTemporary(bytes, for: name, inDirectoryFD: dirfd, directory: directory)
        defer { dirfd.unlinkQuietly(temp) }
        try dirfd.linkAt(temp, name, path: directory + "/" + name)
        do throws(SystemError) {
            try dirfd.fsync(path: directory)
        } catch {
            // The caller is told the file was not made: it must not stay (an outbox file would
            // be delivered although `send` said it failed, and a second send would be a duplicate).
            dirfd.unlinkQuietly(name)
            throw error
        }
    }

    /// Removes `name` from `directory` and makes the removal durable.
    public static func remove(_ name: String, in directory: String) throws(SystemError) {
        let dirfd = try FileDescriptor.openDirectory(directory)
        try dirfd.unlinkAt(name, path: directory + "/" + name)
        try dirfd.fsync(path: directory)
    }

    /// Renames `from` to `to` within `directory` (replacing `to`) and makes it durable.
    public static func rename(_ from: String, to: String, in directory: String) throws(SystemError) {
        let dirfd = try FileDescriptor.openDirectory(directory)
        try dirfd.renameAt(from, to, path: directory + "/" + to)
        try dirfd.fsync(path: directory)
    }

    /// Creates `path` (and missing parents) with mode 0700, fsyncing each new directory into
    /// its parent so it survives a crash. Existing directories are left as they are.
    public static func makeDirectories(_ path: String) throws(SystemError) {
        if Sys.kind(of: path) == .directory { return }
        let parent = parentPath(of: path)
        if parent != path { try makeDirectories(parent) }
        do throws(SystemError) {
            try Sys.mkdir(path)
        } catch {
            if error.isAlreadyExists { return }
            throw error
        }
        if let group = GroupCommit.current { return group.madeDirectory(path) }
        try Sys.fsyncPath(parent)
    }

    /// Removes temp files in `directory` left by writers that no longer run, and hidden
    /// conversation builds (``hiddenBuildPath(for:in:)``) of `create`s that were killed.
    /// Returns the names removed. Temp files of live processes are left alone.
    @discardableResult
    public static func removeStaleTemporaries(in directory: String) -> [String] {
        guard let names = try? Sys.listDirectory(directory) else { return [] }
        var removed: [String] = []
        for name in names where name.hasPrefix(".") && name.hasSuffix(".tmp") {
            let parts = name.split(separator: ".")
            // ".<target>.<pid>.<random>.tmp" → [...target parts, pid, random, "tmp"]
            guard parts.count >= 4, let pid = Int32(parts[parts.count - 3]) else { continue }
            if pid == Sys.currentProcessID || Sys.processExists(pid) { continue }
            let path = directory + "/" + name
            if Sys.kind(of: path) == .directory {
                // A conversation built hidden by a `create` that was killed (ConversationStarter).
                removeHiddenBuild(path)
                if Sys.kind(of: path) == nil { removed.append(name) }
            } else if (try? Sys.unlink(path)) != nil {
                removed.append(name)
            }
        }
        return removed
    }

    public static func parentPath(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    private static func write(
        _ bytes: [UInt8], to name: String, inDirectoryFD dirfd: borrowing FileDescriptor, directory: String
    ) throws(SystemError) {
        let temp = try writeTemporary(bytes, for: name, inDirectoryFD: dirfd, directory: directory)
        do throws(SystemError) {
            try dirfd.renameAt(temp, name, path: directory + "/" + name)
        } catch {
            dirfd.unlinkQuietly(temp)
            throw error
        }
    }

    private static func writeTemporary(
        _ bytes: [UInt8], for name: String, inDirectoryFD dirfd: borrowing FileDescriptor, directory: String
    ) throws(SystemError) -> String {
        let temp = ".\(name).\(Sys.currentProcessID).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let path = directory + "/" + temp
        let fd = try dirfd.createFile(temp, path: path)
        do throws(SystemError) {
            try fd.writeAll(bytes, path: path)
            try fd.fsync(path: path)
        } catch {
            fd.close()
            dirfd.unlinkQuietly(temp)
            throw error
        }
        fd.close()
        return temp
    }
}
