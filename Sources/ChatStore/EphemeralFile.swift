import ChatSystem

/// Files that may be lost and are never fsynced: a reader sees the old bytes or the new ones
/// (temp file, then rename), but a crash may take the newest back. For signals between
/// processes (``RuntimeChannel``) and figures (``SyncStatusFile``, ``OpenTimes``), where an
/// fsync per write would cost more than losing the write ever could.
enum EphemeralFile {
    /// Replaces `name` in `directory` (which must exist) by a temp file
    /// (`.<name>.<pid>.<random>.tmp`, as the durable writes name theirs) and a rename.
    static func replace(_ bytes: [UInt8], as name: String, in directory: String) throws(SystemError) {
        let temp = ".\(name).\(Sys.currentProcessID).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let dirfd = try FileDescriptor.openDirectory(directory)
        let fd = try dirfd.createFile(temp, path: directory + "/" + temp)
        do throws(SystemError) {
            try fd.writeAll(bytes, path: directory + "/" + temp)
        } catch {
            fd.close()
            dirfd.unlinkQuietly(temp)
            throw error
        }
        fd.close()
        do throws(SystemError) {
            try dirfd.renameAt(temp, name, path: directory + "/" + name)
        } catch {
            dirfd.unlinkQuietly(temp)
            throw error
        }
    }
}
