import ChatSystem

/// The watcher's bookkeeping as a value: which watch descriptor is which directory, and what an
/// event means. Pure (no syscalls), so overflow, temp files and directories that appear later are
/// testable with made-up events.
struct WatchTable {
    /// What the driver does for an event.
    enum Action: Equatable {
        case report(WatchedChange)
        /// Add a watch on this directory (relative to the root), scan it, report what is in it.
        case watch(String)
        case unwatch(Int32)
        case rescan
    }

    /// How deep below the root directories are watched: 0 = the root only.
    let maxDepth: Int
    private(set) var directoryByWatch: [Int32: String] = [:]
    private(set) var watchByDirectory: [String: Int32] = [:]

    init(maxDepth: Int) {
        self.maxDepth = maxDepth
    }

    static func depth(of directory: String) -> Int {
        directory.isEmpty ? 0 : directory.utf8.count(where: { $0 == UInt8(ascii: "/") }) + 1
    }

    /// Whether a subdirectory `name` of `directory` is within the watched depth.
    func wantsWatch(below directory: String) -> Bool {
        Self.depth(of: directory) + 1 <= maxDepth
    }

    mutating func register(_ watch: Int32, directory: String) {
        if let old = watchByDirectory[directory], old != watch { directoryByWatch[old] = nil }
        directoryByWatch[watch] = directory
        watchByDirectory[directory] = watch
    }

    mutating func forget(_ watch: Int32) {
        if let directory = directoryByWatch.removeValue(forKey: watch), watchByDirectory[directory] == watch {
            watchByDirectory[directory] = nil
        }
    }

    mutating func handle(_ event: InotifyEvent) -> [Action] {
        if event.mask.contains(.overflow) { return [.rescan] }
        if event.mask.contains(.ignored) {
            forget(event.watch)
            return []
        }
        guard let directory = directoryByWatch[event.watch] else { return [] }
        if event.name.isEmpty {
            // The watched directory itself: when the root moves or goes, every path is stale.
            if directory.isEmpty && !event.mask.isDisjoint(with: [.deleteSelf, .moveSelf, .unmount]) {
                return [.rescan]
            }
            return []
        }
        // Temp files of the durable writer (and editors' swap files) are not commits.
        if event.name.utf8.first == UInt8(ascii: ".") { return [] }
        let path = directory.isEmpty ? event.name : directory + "/" + event.name
        if event.mask.contains(.isDirectory) {
            if !event.mask.isDisjoint(with: [.create, .movedTo]) {
                let appeared = Action.report(
                    WatchedChange(directory: directory, name: event.name, kind: .directoryAppeared))
                return wantsWatch(below: directory) ? [appeared, .watch(path)] : [appeared]
            }
            if !event.mask.isDisjoint(with: [.delete, .movedFrom]) {
                var actions = [
                    Action.report(WatchedChange(directory: directory, name: event.name, kind: .directoryRemoved))
                ]
                // A directory renamed away keeps its watch, now pointing somewhere unwatched.
                if event.mask.contains(.movedFrom), let watch = watchByDirectory[path] {
                    forget(watch)
                    actions.append(.unwatch(watch))
                }
                return actions
            }
            return []
        }
        if !event.mask.isDisjoint(with: [.closeWrite, .movedTo, .create]) {
            return [.report(WatchedChange(directory: directory, name: event.name, kind: .written))]
        }
        if !event.mask.isDisjoint(with: [.delete, .movedFrom]) {
            return [.report(WatchedChange(directory: directory, name: event.name, kind: .removed))]
        }
        return []
    }
}
