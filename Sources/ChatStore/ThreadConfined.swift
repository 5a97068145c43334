/// A value used only on one watcher's thread, carried into its `@Sendable` handler.
final class ThreadConfined<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}
