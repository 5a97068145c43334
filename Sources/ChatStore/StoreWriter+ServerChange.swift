import ChatDomain
import ChatSystem

extension StoreWriter {
    /// Points the store at another server (nil: none): rewrites `chatdir.json` atomically and
    /// durably (``DurableFile``), keeping everything else it says, and returns the new manifest.
    /// Done by the writer, so it waits for no one: while a sync worker holds the lock, making
    /// the writer already failed with ``StoreError/locked(path:holder:)``.
    public func setServer(_ server: ServerAddress?) throws(StoreError) -> Manifest {
        // Read again: the manifest this Store was opened with may be older than the file.
        var manifest = try Store.open(at: store.root).manifest
        manifest.server = server
        let bytes = manifest.encode()
        try system { () throws(SystemError) in try DurableFile.write(bytes, to: StoreLayout.manifest, in: store.root) }
        return manifest
    }
}
