/// What a following command waits for: a new value from the store, or a signal.
enum FollowEvent<Value: Sendable>: Sendable {
    case value(Value)
    case signal(TerminalSignal)
    /// The store's stream ended (its watcher could not go on).
    case ended
}
