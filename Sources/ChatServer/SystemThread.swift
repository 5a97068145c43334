#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Threads, sleeps, clocks and signals for the server, straight from POSIX (the one file that
/// talks to Glibc for them; sockets are in `Socket.swift`).
///
/// The server runs blocking calls (accept, recv, fsync) on threads of its own and never on
/// Swift's cooperative pool or libdispatch's small global pool, where they would stall unrelated
/// work (see LINUX-NOTES.md). Foundation's `Thread` would do, but pulling Foundation into the
/// `chatdir` binary costs every command its start-up time.
public enum SystemThread {
    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Starts a detached thread running `body`.
    /// - Throws: ``SocketError`` with the errno of `pthread_create` (EAGAIN: too many threads).
    static func detach(_ body: @escaping @Sendable () -> Void) throws(SocketError) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { raw in
            guard let raw else { return nil }
            Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw SocketError(operation: "pthread_create", errno: result)
        }
        pthread_detach(thread)
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
        while nanosleep(&request, &remaining) != 0 && errno == EINTR {
            request = remaining
        }
    }

    /// Milliseconds on the monotonic clock: for deadlines and latencies, never for timestamps.
    public static func monotonicMilliseconds() -> Int {
        Int(monotonicNanoseconds() / 1_000_000)
    }

    /// Nanoseconds on the monotonic clock.
    public static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}

/// Waiting for SIGINT and SIGTERM without a handler: they are blocked in every thread and
/// picked up by `sigwait` in the one that asks, so shutdown runs as ordinary code.
public enum TerminationSignals {
    private static func set() -> sigset_t {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        return signals
    }

    /// Blocks SIGINT and SIGTERM in the calling thread and every thread it starts later; call
    /// it first thing, before any thread exists. Also ignores SIGPIPE for the whole process.
    public static func block() {
        var signals = set()
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        Glibc.signal(SIGPIPE, SIG_IGN)
    }

    /// Waits for SIGINT or SIGTERM and returns its name.
    public static func wait() -> String {
        var signals = set()
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        return received == SIGINT ? "SIGINT" : "SIGTERM"
    }
}
