import ChatStore
import ChatSystem

extension Context {
    /// Records how long this command took to show its conversation, from its start to the
    /// first rows written (``OpenTimes``: no fsync, one small append), for `chatdir status`.
    func recordOpen(store: Store) {
        let channel = RuntimeChannel(storeRoot: store.root, runtimeDirectory: environment["XDG_RUNTIME_DIR"])
        OpenTimes(channel).record(milliseconds: Clock.monotonicMilliseconds() - started)
    }
}
