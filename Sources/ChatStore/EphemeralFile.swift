import ChatSystem

/// Files that may be lost and are never fsynced: a reader sees the old bytes or the new ones
/// (temp file, then rename), but a crash may take the newest back. For figures in the store
/// (``SyncStatusFile``), where an fsync per write would cost more than losing the write ever
/// could; the runtime channel's files are written the same way through ``PrivateDirectory``.
enum EphemeralFile {
    /// Replaces `name` in `directory` (which must exist) by a temp file
    /// (`.<name>.<pid>.<random>.tmp`, as the durable writes name theirs) and a rename.
    static func replace(_ bytes: [UInt8], as name: String, in directory: String) throws(SystemError) {
        try FileDescriptor.openDirectory(directory).replaceWithoutSync(name, with: bytes, directory: directory)
    }

    /// Removes `name` from `directory` when it is there (no fsync either).
    static func remove(_ name: String, in directory: String) throws(SystemError) {
        guard Sys.kind(of: directory + "/" + name) != nil else { return }
        try FileDescriptor.openDirectory(directory).unlinkAt(name, path: directory + "/" + name)
    }
}
