#if canImport(Glibc)
    import Glibc
#endif

/// Threads and sleeps straight from POSIX, for blocking work (accept, recv, poll, fsync) that must
/// never occupy Swift's cooperative pool or libdispatch's small global pool, where it would
/// stall unrelated work (docs/ARCHITECTURE.md, "Where blocking work runs"). Foundation's `Thread` would do, but pulling
/// Foundation into the `chatdir` binary costs every command its start-up time.
public enum SystemThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// `pthread_create(3)` running `body`: the one place threads are made (``detach(_:)`` and
    /// ``DedicatedThread`` start theirs here).
    /// - Throws: ``SystemError`` with the errno of `pthread_create` (EAGAIN: too many threads).
    static func create(_ body: @escaping @Sendable () -> Void, purpose: String) throws(SystemError) -> pthread_t {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { raw in
                guard let raw else { return nil }
                Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
                return nil
            }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw SystemError(operation: "pthread_create", path: purpose, errno: Errno(rawValue: result))
        }
        return thread
    }

    /// Starts a detached thread running `body`.
    /// - Throws: ``SystemError`` with the errno of `pthread_create` (EAGAIN: too many threads).
    public static func detach(_ body: @escaping @Sendable () -> Void) throws(SystemError) {
        pthread_detach(try create(body, purpose: ""))
    }

    /// Sleeps the calling thread (never call it from async code).
    public static func sleep(milliseconds: Int) {
        sleep(microseconds: milliseconds * 1000)
    }

    /// Sleeps the calling thread for `microseconds` (plus the kernel's timer slack, about 50 µs).
    public static func sleep(microseconds: Int) {
        guard microseconds > 0 else { return }
        var request = timespec(tv_sec: microseconds / 1_000_000, tv_nsec: (microseconds % 1_000_000) * 1000)
        var remaining = timespec()
        // nanosleep reports how much is left when a signal interrupts it: sleep only that.
        while nanosleep(&request, &remaining) != 0 && Errno.current == .interrupted {
            request = remaining
        }
    }
}
