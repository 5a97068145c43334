#if canImport(Glibc)
    import Glibc
#endif

/// A dedicated OS thread that can be joined (a `poll(2)` loop that must be stopped and waited for).
public final class DedicatedThread: @unchecked Sendable {
    // Written once in `start` before any other thread can see it; read by `join` afterwards.
    private var thread: pthread_t = 0
    private var started = false

    public init() {}

    /// Starts `body` on a new thread. Throws when the system has no thread to spare.
    public func start(_ body: @escaping @Sendable () -> Void) throws(SystemError) {
        thread = try SystemThread.create(body, purpose: "(watcher thread)")
        started = true
    }

    /// Whether the caller is this thread (joining itself would deadlock).
    public var isCurrent: Bool { started && pthread_equal(thread, pthread_self()) != 0 }

    /// Waits for the thread to finish; from the thread itself, detaches it instead.
    public func join() {
        guard started else { return }
        if isCurrent {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
        started = false
    }
}
