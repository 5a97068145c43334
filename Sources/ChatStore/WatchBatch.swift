/// What the watcher hands its handler after each wake-up: every change read in one go.
public struct WatchBatch: Sendable, Equatable {
    /// Changes in the order the kernel reported them, one per path (the last kind wins), so a
    /// burst of events becomes one batch and a file touched twice is read once.
    public var changes: [WatchedChange]
    /// Re-read everything: the first batch, after IN_Q_OVERFLOW, after a read error, or when a
    /// watched directory moved or the root went away. ``changes`` is then incomplete.
    public var rescan: Bool
    /// Nothing happened for the idle interval: a moment to check what inotify cannot see.
    public var isIdle: Bool
    /// Why some directories are looked at on a timer instead of watched (a kernel limit
    /// reached): set on every batch from the first refusal on, nil while inotify sees everything.
    public var polling: WatchFallback?

    public init(
        changes: [WatchedChange] = [], rescan: Bool = false, isIdle: Bool = false, polling: WatchFallback? = nil
    ) {
        self.changes = changes
        self.rescan = rescan
        self.isIdle = isIdle
        self.polling = polling
    }
}
