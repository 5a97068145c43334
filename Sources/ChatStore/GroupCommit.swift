import ChatSystem

/// Many small files, in many directories, made durable together: the store's writes (through
/// ``DurableFile``) while one is ``current`` are staged instead of written, and ``commit()``
/// publishes them all at once.
///
/// temp files written (O_EXCL, mode 0600, no fsync each) → `syncfs(2)` → every temp renamed
/// over its target → `syncfs(2)` (a group of fewer than ``syncfsFrom`` files: each temp
/// fsynced, renamed, each directory fsynced, as ``DurableFile`` does). Each rename comes after its temp file's bytes are durable, so
/// a crash never leaves a renamed file incomplete; it may lose some renames of the commit (their
/// temp files are swept as stale), which is work nobody was told about yet. Two journal
/// commits for the whole group instead of two fsyncs per file and one per new directory.
///
/// A group reads nothing back: a file staged is not visible until the commit, so a caller stages
/// each file at most once per group (a second staging of one path fails the commit, see
/// ``commit()``). Directories are made at once (``DurableFile/makeDirectories(_:)``), their
/// parents made durable by the commit's second `syncfs`.
public final class GroupCommit: Sendable {
    /// The group the current task's store writes go to, if any.
    @TaskLocal public static var current: GroupCommit?

    private struct Staged {
        var directory: String
        var name: String
        var bytes: [UInt8]
    }

    private struct State {
        var files: [Staged] = []
        var paths: Set<String> = []
        /// The parents of the directories made, to be made durable with the files.
        var parents: [String] = []
        /// A path staged twice: the second copy was computed without seeing the first.
        var stagedTwice: String?
    }

    private let state = Lock(State())
    /// Groups of at least this many files are made durable by `syncfs(2)`; smaller ones by an
    /// fsync per file and per directory.
    public static let syncfsFrom = 16
    /// This group's threshold for `syncfs(2)` (``syncfsFrom`` unless given).
    private let wholeFileSystemFrom: Int

    /// - Parameter syncfsFrom: the fewest files made durable by `syncfs(2)` instead of an
    ///   fsync each (a caller whose files are each in a directory of their own gains sooner).
    public init(syncfsFrom: Int = GroupCommit.syncfsFrom) {
        wholeFileSystemFrom = syncfsFrom
    }

    /// Whether the group has nothing to commit.
    public var isEmpty: Bool { state.withLock { $0.files.isEmpty && $0.parents.isEmpty } }

    /// How many files are staged.
    public var count: Int { state.withLock { $0.files.count } }

    /// Runs `body` with the store's durable writes staged into this group (not committed).
    public func staging<T, Failure: Error>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        let outcome: Result<T, Failure> = Self.$current.withValue(self) {
            do throws(Failure) { return .success(try body()) } catch { return .failure(error) }
        }
        return try outcome.get()
    }

    /// Adds a file to the group: `name` in `directory` replaced by `bytes` at the ``commit()``.
    public func stage(_ bytes: [UInt8], as name: String, in directory: String) {
        state.withLock { state in
            let path = directory + "/" + name
            if !state.paths.insert(path).inserted, state.stagedTwice == nil { state.stagedTwice = path }
            state.files.append(Staged(directory: directory, name: name, bytes: bytes))
        }
    }

    func madeDirectory(_ path: String) {
        let parent = DurableFile.parentPath(of: path)
        state.withLock { if !$0.parents.contains(parent) { $0.parents.append(parent) } }
    }

    /// Publishes everything staged, durably, and empties the group. On a failure nothing more
    /// is renamed, the temp files not renamed are removed, and what was renamed before stays
    /// (complete, but perhaps not durable): the caller treats the whole group as not written.
    /// - Throws: ``SystemError`` of the write, `syncfs` or rename that failed (EINVAL naming the
    ///   path when one file was staged twice; nothing is written then).
    public func commit() throws(SystemError) {
        let staged = state.withLock { state in
            defer { state = State() }
            return state
        }
        if let path = staged.stagedTwice {
            throw SystemError(operation: "group commit (staged twice)", path: path, errno: .invalidArgument)
        }
        guard let first = staged.files.first?.directory else {
            // Only directories were made (a store from git has no empty outbox/): their entries.
            for parent in staged.parents.reversed() { try Sys.fsyncPath(parent) }
            return
        }
        // A few files are cheaper made durable one fsync each than by flushing the whole file
        // system (whatever else is dirty on it) twice.
        let wholeFileSystem = staged.files.count >= wholeFileSystemFrom
        var temps: [String] = []
        temps.reserveCapacity(staged.files.count)
        var renamed = 0
        do throws(SystemError) {
            for file in staged.files {
                temps.append(
                    try Self.writeTemporary(file.bytes, for: file.name, in: file.directory, fsync: !wholeFileSystem))
            }
            let anchor = try FileDescriptor.openDirectory(first)
            if wholeFileSystem { try anchor.syncFileSystem(path: first) }
            for (file, temp) in zip(staged.files, temps) {
                try Sys.rename(file.directory + "/" + temp, file.directory + "/" + file.name)
                renamed += 1
            }
            if wholeFileSystem {
                try anchor.syncFileSystem(path: first)
            } else {
                // Each directory a file was renamed in, and the parents of new directories.
                var directories = Set<String>()
                for directory in staged.files.map(\.directory) + staged.parents.reversed()
                where directories.insert(directory).inserted {
                    try Sys.fsyncPath(directory)
                }
            }
        } catch {
            for (file, temp) in zip(staged.files, temps).dropFirst(renamed) {
                try? Sys.unlink(file.directory + "/" + temp)
            }
            throw error
        }
    }

    /// A temp file named as ``DurableFile`` names them (so ``DurableFile/removeStaleTemporaries(in:)``
    /// sweeps what a killed commit left), written whole and closed, not fsynced.
    private static func writeTemporary(_ bytes: [UInt8], for name: String, in directory: String, fsync: Bool)
        throws(SystemError) -> String
    {
        let temp = ".\(name).\(Sys.currentProcessID).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let path = directory + "/" + temp
        let fd = try FileDescriptor.open(path, [.writeOnly, .create, .exclusive])
        do throws(SystemError) {
            try fd.writeAll(bytes, path: path)
            if fsync { try fd.fsync(path: path) }
        } catch {
            fd.close()
            try? Sys.unlink(path)
            throw error
        }
        fd.close()
        return temp
    }
}
