import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// A POSIX signal number with a name.
public struct Signal: RawRepresentable, Hashable, Sendable {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// SIGINT: Ctrl-C.
    public static let interrupt = Signal(rawValue: SIGINT)
    /// SIGTERM: `kill`'s default.
    public static let terminate = Signal(rawValue: SIGTERM)
    /// SIGHUP: the terminal went away.
    public static let hangUp = Signal(rawValue: SIGHUP)
    /// SIGWINCH: the terminal window changed size.
    public static let windowChanged = Signal(rawValue: SIGWINCH)
    /// SIGPIPE: a write to a pipe or socket nobody reads.
    public static let brokenPipe = Signal(rawValue: SIGPIPE)
    /// SIGKILL: cannot be caught; for killing children in tests and tools.
    public static let kill = Signal(rawValue: SIGKILL)

    /// The name, like `SIGINT`.
    public var name: String {
        switch self {
        case .interrupt: "SIGINT"
        case .terminate: "SIGTERM"
        case .hangUp: "SIGHUP"
        case .windowChanged: "SIGWINCH"
        case .brokenPipe: "SIGPIPE"
        case .kill: "SIGKILL"
        default: "signal \(rawValue)"
        }
    }

    /// Turns the default action of this signal off for the whole process (`SIG_IGN`).
    public func ignore() {
        Glibc.signal(rawValue, SIG_IGN)
    }
}

/// Signals delivered to a handler on a private serial queue instead of in a signal handler
/// (`DispatchSource.makeSignalSource`); their default actions are turned off while it runs.
public final class SignalWatch: @unchecked Sendable {
    // `DispatchSourceSignal` is not Sendable on Linux; the sources are only resumed in `init`
    // and cancelled in `cancel`, which dispatch allows from any thread.
    private let sources: [any DispatchSourceSignal]

    public init(_ signals: [Signal], handler: @escaping @Sendable (Signal) -> Void) {
        let queue = DispatchQueue(label: "chatdir.signals")
        sources = signals.map { signal in
            signal.ignore()
            let source = DispatchSource.makeSignalSource(signal: signal.rawValue, queue: queue)
            source.setEventHandler { handler(signal) }
            source.resume()
            return source
        }
    }

    /// Stops delivering (the signals stay ignored).
    public func cancel() {
        for source in sources { source.cancel() }
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
        Signal.brokenPipe.ignore()
    }

    /// Waits for SIGINT or SIGTERM and returns its name.
    public static func wait() -> String {
        var signals = set()
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        return received == SIGINT ? "SIGINT" : "SIGTERM"
    }
}
