import ChatSystem

/// Why a ``DirectoryWatcher`` looks for changes by listing directories on a timer instead of
/// being told by inotify: the kernel refused a watch or an instance (a per-user limit reached,
/// or no memory). Nothing is missed; changes are seen up to ``intervalMilliseconds`` later.
/// Its description is the one warning a command gives; ``summary`` fits a status line.
public struct WatchFallback: Hashable, Sendable, CustomStringConvertible {
    public var limit: InotifyLimit
    /// The directory the kernel would not watch (or start inotify for), as the watcher named it.
    public var path: String
    /// How often the directories are listed instead.
    public var intervalMilliseconds: Int
    /// The limit's value and the user namespace's, read when it was reached (nil: unreadable).
    public var value: Int?
    public var namespaceValue: Int?

    public init(limit: InotifyLimit, path: String, intervalMilliseconds: Int, value: Int?, namespaceValue: Int?) {
        self.limit = limit
        self.path = path
        self.intervalMilliseconds = intervalMilliseconds
        self.value = value
        self.namespaceValue = namespaceValue
    }

    /// The limit as it stands now, for `path`.
    init(limit: InotifyLimit, path: String, intervalMilliseconds: Int) {
        self.init(
            limit: limit, path: path, intervalMilliseconds: intervalMilliseconds, value: limit.value,
            namespaceValue: limit.namespaceValue)
    }

    /// `every second`, `every 250 ms`.
    var every: String {
        if intervalMilliseconds == 1000 { return "every second" }
        if intervalMilliseconds % 1000 == 0 { return "every \(intervalMilliseconds / 1000) s" }
        return "every \(intervalMilliseconds) ms"
    }

    /// What was reached, with the settings' values: `the kernel's inotify watch limit is reached
    /// (fs.inotify.max_user_watches = 8192)`.
    var reason: String {
        guard let setting = limit.setting else { return "the kernel has no memory for another inotify watch" }
        let what = limit == .watches ? "inotify watch limit" : "limit on inotify instances"
        var values = "\(setting) = \(value.map(String.init) ?? "?")"
        // Inside a container (a user namespace) the namespace's own limit can be the lower one.
        if let namespaceValue, let namespaceSetting = limit.namespaceSetting, namespaceValue < (value ?? Int.max) {
            values += "; \(namespaceSetting) = \(namespaceValue) in this user namespace"
        }
        return "the kernel's \(what) is reached (\(values))"
    }

    /// The warning, whole: what could not be watched, why, what happens instead, what to do.
    public var description: String {
        let verb = limit == .instances ? "cannot start inotify for" : "cannot watch"
        var text = "\(verb) \(path): \(reason); checking for changes \(every) instead"
        if let setting = limit.setting {
            let raised = limit == .watches ? max(524_288, (value ?? 0) * 2) : max(1024, (value ?? 0) * 2)
            text +=
                ". Raise it with `sysctl \(setting)=\(raised)` (as root; in /etc/sysctl.d/ to keep it), or stop programs that watch many files"
        }
        return text
    }

    /// One line for a status line: `checking for changes every second: inotify watch limit
    /// reached (fs.inotify.max_user_watches)`.
    public var summary: String {
        switch limit {
        case .watches: "checking for changes \(every): inotify watch limit reached (fs.inotify.max_user_watches)"
        case .instances: "checking for changes \(every): inotify instance limit reached (fs.inotify.max_user_instances)"
        case .memory: "checking for changes \(every): no kernel memory for inotify"
        }
    }
}
