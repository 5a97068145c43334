import ChatStore

/// The one warning a following command gives on stderr when its watcher looks for changes on a
/// timer because the kernel refused inotify (``WatchFallback``): written once, whichever
/// watcher said it first. A full screen on the terminal would draw over a line written into it
/// at once, so there (`deferred`) the line waits until the screen is put away, and the screen's
/// status line says it meanwhile.
struct PollingWarning {
    /// `view`: the line starts `chatdir view: warning: `.
    let command: String
    let output: Output
    let deferred: Bool
    /// The first reason heard; nil while every watcher is told by inotify.
    private(set) var reason: WatchFallback?
    private var written = false

    init(command: String, output: Output, deferred: Bool = false) {
        self.command = command
        self.output = output
        self.deferred = deferred
    }

    /// Takes a watcher's reason (nil: it polls nothing); writes the warning the first time
    /// unless deferred. Returns whether this was the first reason heard.
    @discardableResult
    mutating func note(_ polling: WatchFallback?) -> Bool {
        guard let polling, reason == nil else { return false }
        reason = polling
        if !deferred { write() }
        return true
    }

    /// Writes a deferred warning, once the screen is put away.
    mutating func finish() {
        if reason != nil { write() }
    }

    /// The state with the reason heard, when its own watcher is not the one polling (the
    /// runtime channel's may be): the status line says why either way.
    func marked(_ state: ConversationState) -> ConversationState {
        guard state.polling == nil, let reason else { return state }
        var state = state
        state.polling = reason
        return state
    }

    private mutating func write() {
        guard !written, let reason else { return }
        written = true
        output.error("chatdir \(command): warning: \(reason)")
    }
}
