import ChatStore
import ChatSystem

extension Context {
    /// Records how long this command took to show its conversation, from its start to the
    /// first rows written (``OpenTimes``: no fsync, one small append), for `chatdir status`.
    /// Returns a warning when the runtime directory is refused (another user's, a symlink): the
    /// figure is not written, and the caller says why where the user looks (stderr, or the
    /// screen), so someone tampering with it is never met with silence.
    @discardableResult
    func recordOpen(store: Store) -> String? {
        let now = Clock.nanosecondsSince1970()
        guard now >= started else { return nil } // the clock was stepped back meanwhile
        let channel = RuntimeChannel(storeRoot: store.root, runtimeDirectory: environment["XDG_RUNTIME_DIR"])
        guard let refused = OpenTimes(channel).record(milliseconds: Double(now - started) / 1_000_000),
            refused.detail != nil
        else { return nil }
        return "warning: " + RuntimeChannel.refusal(refused)
    }

    /// ``recordOpen(store:)`` for a command whose output is a stream: the warning on stderr.
    func recordOpenSayingWhy(store: Store) {
        if let warning = recordOpen(store: store) { output.error("chatdir \(arguments.command): \(warning)") }
    }
}
