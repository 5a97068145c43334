import ChatDomain
import ChatSystem

/// What a store needs to be kept in git: its `.gitignore` (per-device files stay out),
/// its `.gitattributes` (shared files merge with `chatdir merge-file`), and the 0600/0700 modes
/// git does not keep. docs/FORMAT.md, "Keeping a store in git".
public enum StoreGitFiles {
    public static let ignoreName = ".gitignore"
    public static let attributesName = ".gitattributes"
    /// The merge driver's name in `.gitattributes` and in git's config (`merge.chatdir.driver`).
    public static let driverName = "chatdir"

    /// Every hidden name is this device's own (`.lock`, `.caught-up`, `messages/.newest`, temp
    /// files, and any per-device state a later chatdir adds), and so is the outbox.
    public static let ignore = """
        # Written by chatdir (docs/FORMAT.md, "Keeping a store in git"): what belongs to one device.
        # Hidden names are per device: .lock, .caught-up, messages/.newest, temp files, status files.
        .*
        !.gitignore
        !.gitattributes
        # Messages and read wishes this device has not delivered yet.
        outbox/

        """

    /// The shared files, each merged by `chatdir merge-file` once `chatdir git-setup` has
    /// registered it (git ignores a driver that is not in its config).
    public static let attributes = """
        # Written by chatdir (docs/FORMAT.md, "Keeping a store in git"): the shared files merge with
        # `chatdir merge-file`, registered in the repository's config by `chatdir git-setup`.
        conversations/*/conversation.json merge=chatdir
        conversations/*/positions.json merge=chatdir
        conversations/*/messages/*.json merge=chatdir

        """

    /// Writes `.gitignore` and `.gitattributes` into the store at `root`. A file already there
    /// keeps its lines and gets only the rules it lacks, so running this twice changes nothing.
    /// Returns the names of the files written.
    @discardableResult
    public static func install(in root: String) throws(StoreError) -> [String] {
        var written: [String] = []
        for (name, text) in [(ignoreName, ignore), (attributesName, attributes)] {
            let existing = try StoreFiles.read(root + "/" + name, relative: name)
            guard let bytes = completed(existing, with: text) else { continue }
            do { try DurableFile.write(bytes, to: name, in: root) } catch { throw .system(error) }
            written.append(name)
        }
        return written
    }

    /// `existing` with the rules of `text` it lacks appended (nil when it lacks none): a
    /// missing file gets `text` whole, comments included.
    static func completed(_ existing: [UInt8]?, with text: String) -> [UInt8]? {
        guard let existing else { return Array(text.utf8) }
        let present = Set(
            String(decoding: existing, as: UTF8.self).split(separator: "\n").map { $0.trimmingCharacters() })
        let missing = text.split(separator: "\n").filter { line in
            !line.hasPrefix("#") && !line.isEmpty && !present.contains(String(line))
        }
        guard !missing.isEmpty else { return nil }
        var bytes = existing
        if let last = bytes.last, last != 0x0A { bytes.append(0x0A) }
        bytes += Array("# Added by chatdir git-setup:\n".utf8)
        for line in missing { bytes += Array((line + "\n").utf8) }
        return bytes
    }

    /// Gives every file of the store mode 0600 and every directory 0700, as chatdir creates
    /// them (a `git clone` leaves 0644/0755 under a usual umask). Skips `.git` and symbolic links.
    /// Returns the paths changed, relative to `root`.
    public static func restoreModes(in root: String) throws(StoreError) -> [String] {
        var changed: [String] = []
        try walk(root) { (relative, path, wanted) throws(StoreError) in
            guard Sys.mode(of: path) != wanted else { return }
            do throws(SystemError) { try Sys.chmod(path, wanted) } catch { throw .system(error) }
            changed.append(relative)
        }
        return changed
    }

    /// The files and directories of the store that others may use (a mode with a bit outside
    /// 0600 for a file or 0700 for a directory: what git leaves after a clone, pull or merge
    /// under a usual umask), each with its mode, relative to `root`; `.git` and symbolic
    /// links are left out, as ``restoreModes(in:)`` leaves them.
    public static func widerModes(in root: String) -> [(path: String, mode: UInt32)] {
        var wider: [(path: String, mode: UInt32)] = []
        try? walk(root) { (relative, path, wanted) throws(StoreError) in
            if let mode = Sys.mode(of: path), mode & ~wanted != 0 { wider.append((relative, mode)) }
        }
        return wider
    }

    /// Calls `visit` with each directory and file under `root` (root itself as "."), its
    /// full path and the mode chatdir gives its kind; never through a link or into `.git`.
    private static func walk(_ root: String, _ visit: (String, String, UInt32) throws(StoreError) -> Void)
        throws(StoreError)
    {
        func enter(_ relative: String) throws(StoreError) {
            let path = relative.isEmpty ? root : root + "/" + relative
            guard let kind = Sys.kind(of: path), kind == .directory || kind == .file else { return }
            try visit(
                relative.isEmpty ? "." : relative, path,
                kind == .directory ? FileDescriptor.directoryMode : FileDescriptor.fileMode)
            guard kind == .directory else { return }
            let names: [String]
            do { names = try Sys.listDirectory(path).sorted() } catch { throw .system(error) }
            for name in names where name != ".git" {
                try enter(relative.isEmpty ? name : relative + "/" + name)
            }
        }
        try enter("")
    }

    /// The directory of the git repository `root` is in (the first of it and its parents that
    /// holds a `.git` directory or file), or nil when it is in none.
    public static func repository(containing root: String) -> String? {
        guard var directory = Sys.realPath(root) else { return nil }
        while true {
            if Sys.kind(of: directory + "/.git") != nil { return directory }
            guard directory != "/", !directory.isEmpty else { return nil }
            directory = DurableFile.parentPath(of: directory)
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        var text = self
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
