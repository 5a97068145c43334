import ChatSystem

/// The directories a ``DirectoryWatcher`` could not watch with inotify, looked at by listing
/// them: each one's entries as last seen (`lstat(2)`: kind, inode, size, times), and what
/// changed since, reported as the inotify events would have been (``WatchedChange``). Every
/// directory below a polled one, within the depth, is polled too. Names starting with `.` (temp
/// files) are ignored, as ``WatchTable`` ignores them.
///
/// A file replaced by rename (every writer of the store does that) is another inode, so it is
/// always seen; one rewritten in place is seen when its size or times moved, which a second
/// write within the file system's clock tick after a look may not do.
struct PolledDirectories {
    /// The watched tree's root: the directories here are relative to it ("" is the root).
    let root: String
    /// How deep below the root directories are polled: 0 = the root only.
    let maxDepth: Int
    /// Per polled directory, its entries as last seen.
    private(set) var entries: [String: [String: PathStatus]] = [:]
    /// Whether the polled root was missing at the last look (reported once, as a rescan).
    private var rootGone = false

    init(root: String, maxDepth: Int) {
        self.root = root
        self.maxDepth = maxDepth
    }

    var isEmpty: Bool { entries.isEmpty }

    /// Whether `directory` is polled.
    func contains(_ directory: String) -> Bool { entries[directory] != nil }

    /// Starts polling `directory` and the directories below it within the depth; with `report`,
    /// every file found is reported as written (it was made before anything looked). A
    /// directory already polled starts over from what is there now.
    mutating func add(_ directory: String, report: Bool, into changes: inout [WatchedChange]) {
        guard let found = list(directory) else { return }
        entries[directory] = found
        for (name, status) in found.sorted(by: { $0.key < $1.key }) {
            let path = Self.join(directory, name)
            if status.kind == .directory {
                if wantsPoll(below: directory) { add(path, report: report, into: &changes) }
            } else if report {
                changes.append(WatchedChange(directory: directory, name: name, kind: .written))
            }
        }
    }

    /// Looks at every polled directory, parents first, and returns what changed since the last
    /// look; `rescan` when the root itself went away (every path is stale, as when inotify
    /// reports the root deleted).
    mutating func scan() -> (changes: [WatchedChange], rescan: Bool) {
        var changes: [WatchedChange] = []
        var rescan = false
        let order = entries.keys.sorted { (WatchTable.depth(of: $0), $0) < (WatchTable.depth(of: $1), $1) }
        for directory in order {
            // Gone with a parent looked at before it.
            guard let before = entries[directory] else { continue }
            guard let now = list(directory) else {
                if directory.isEmpty {
                    // Kept, empty, so that a root made again is reported whole.
                    if !rootGone { rescan = true }
                    rootGone = true
                    removeBelow("")
                    entries[""] = [:]
                } else {
                    // Its parent reports it: by inotify, or in this scan if polled.
                    remove(directory)
                }
                continue
            }
            if directory.isEmpty { rootGone = false }
            entries[directory] = now
            changes += differences(in: directory, before: before, now: now)
        }
        return (changes, rescan)
    }

    /// What changed in `directory` between two listings; starts polling directories that
    /// appeared and stops for those that went.
    private mutating func differences(in directory: String, before: [String: PathStatus], now: [String: PathStatus])
        -> [WatchedChange]
    {
        var changes: [WatchedChange] = []
        for (name, old) in before.sorted(by: { $0.key < $1.key }) {
            let new = now[name]
            let path = Self.join(directory, name)
            if old.kind == .directory {
                // Gone, or another directory (or a file) in its place.
                guard new?.kind != .directory || new?.identity != old.identity else { continue }
                changes.append(WatchedChange(directory: directory, name: name, kind: .directoryRemoved))
                remove(path)
            } else if new == nil || new?.kind == .directory {
                changes.append(WatchedChange(directory: directory, name: name, kind: .removed))
            }
        }
        for (name, status) in now.sorted(by: { $0.key < $1.key }) {
            let old = before[name]
            let path = Self.join(directory, name)
            if status.kind == .directory {
                guard old?.kind != .directory || old?.identity != status.identity else { continue }
                changes.append(WatchedChange(directory: directory, name: name, kind: .directoryAppeared))
                if wantsPoll(below: directory) { add(path, report: true, into: &changes) }
            } else if old != status {
                changes.append(WatchedChange(directory: directory, name: name, kind: .written))
            }
        }
        return changes
    }

    /// Stops polling `directory` and everything below it.
    mutating func remove(_ directory: String) {
        entries[directory] = nil
        removeBelow(directory)
    }

    private mutating func removeBelow(_ directory: String) {
        let prefix = directory.isEmpty ? "" : directory + "/"
        for key in entries.keys where !key.isEmpty && key.hasPrefix(prefix) && key != directory {
            entries[key] = nil
        }
    }

    /// Whether subdirectories of `directory` are within the depth.
    private func wantsPoll(below directory: String) -> Bool {
        WatchTable.depth(of: directory) + 1 <= maxDepth
    }

    /// The entries of `directory` but temp files; nil when it cannot be listed (gone).
    private func list(_ directory: String) -> [String: PathStatus]? {
        let absolute = directory.isEmpty ? root : root + "/" + directory
        guard let names = try? Sys.listDirectory(absolute) else { return nil }
        var found: [String: PathStatus] = [:]
        for name in names where name.utf8.first != UInt8(ascii: ".") {
            // Removed between the listing and the look: as if the listing had not had it.
            if let status = Sys.status(of: absolute + "/" + name) { found[name] = status }
        }
        return found
    }

    private static func join(_ directory: String, _ name: String) -> String {
        directory.isEmpty ? name : directory + "/" + name
    }
}
