#if canImport(Glibc)
    import Glibc
#endif

/// A value behind a `pthread_mutex_t`: the lock for state that threads really share (the
/// server's conversations, connections and live sessions, the watcher thread's handle, the sync
/// client's pool, a descriptor handed to another thread). Same shape as `Synchronization.Mutex`:
/// `withLock { value in … }`; the value may be non-copyable (a ``FileDescriptor``).
///
/// Why not `Mutex`: on Linux it waits in the kernel through a priority-inheritance futex, and
/// when it is contended the lock passes from one thread to the next inside the kernel, where
/// ThreadSanitizer cannot see it. TSan then reports every contended critical section as a data
/// race, and the real races drown in them. `pthread_mutex_lock` is intercepted by TSan, and costs
/// the same (a compare-and-swap uncontended, a futex wait otherwise).
public final class Lock<Value: Sendable & ~Copyable>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// Touched only between `pthread_mutex_lock` and `pthread_mutex_unlock`.
    private var value: Value

    public init(_ initialValue: consuming Value) {
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        value = initialValue
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock (never call `withLock` on the same lock
    /// inside `body`: the mutex is not recursive).
    public func withLock<Result: ~Copyable, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result)
        throws(Failure) -> Result
    {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
