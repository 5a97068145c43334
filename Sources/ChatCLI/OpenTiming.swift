import ChatStore
import ChatSystem

extension Context {
    /// Records how long this command took to show its conversation, from its start to the
    /// first rows written (``OpenTimes``: no fsync, one small append), for `chatdir status`.
    func recordOpen(store: Store) {
        let now = Clock.nanosecondsSince1970()
        guard now >= started else { return }  // the clock was stepped back meanwhile
        let channel = RuntimeChannel(storeRoot: store.root, runtimeDirectory: environment["XDG_RUNTIME_DIR"])
        OpenTimes(channel).record(milliseconds: Int((now - started) / 1_000_000))
    }
}
