import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Test-only fault injection, in the module whose wrappers it breaks: makes `open(2)` with O_CREAT,
/// `write(2)`, `fsync(2)`, `rename(2)`, `link(2)` or `unlink(2)` fail as a full disk (ENOSPC) or
/// an I/O error (EIO) would. A rule covers the paths under one prefix (a test's own temp
/// directory, or one exact path), so tests running in parallel never meet each other's faults.
/// A rule counts the calls it matches: a test runs an operation once with a counting rule to
/// learn how many calls it makes, then again for each N with a rule that fails the Nth.
/// Nothing in the shipped code sets a rule; with none set, the cost is one atomic load.
public enum FaultInjection {
    /// The wrapped calls a rule can break. The raw value is the word errors use.
    public enum Operation: String, Sendable, CaseIterable {
        case open, write, fsync, rename, link, unlink
    }

    /// What a rule does: which calls it matches and which of them fail.
    public struct Rule: Sendable {
        /// Paths equal to this, or below it when ``exact`` is false.
        public var path: String
        public var exact: Bool
        public var operations: Set<Operation>
        /// The matching call (1-based) that fails first; nil only counts.
        public var failAt: Int?
        /// Whether every matching call from ``failAt`` on fails (a disk that stays full), or only that one.
        public var persistent: Bool
        public var errno: Errno
        /// Matching calls made so far.
        public var calls = 0
        /// Calls that were failed.
        public var failed = 0

        func matches(_ operation: Operation, _ candidate: String) -> Bool {
            guard operations.contains(operation) else { return false }
            if exact { return candidate == path }
            return candidate == path
                || (candidate.hasPrefix(path) && candidate.utf8.dropFirst(path.utf8.count).first == UInt8(ascii: "/"))
        }
    }

    private static let rules = Lock<[String: Rule]>([:])
    private static let active = Atomic<Bool>(false)

    /// Installs (replacing any for the same path) a rule for every path under `directory`: the
    /// `failAt`th call of `operations` fails with `errno` (and every later one when `persistent`);
    /// with `failAt` nil the calls are only counted.
    public static func inject(
        _ operations: Set<Operation>, under directory: String, failAt: Int?, persistent: Bool = false,
        errno: Errno = .ioError
    ) {
        install(
            Rule(
                path: directory, exact: false, operations: operations, failAt: failAt, persistent: persistent,
                errno: errno))
    }

    /// From now on, fsync of exactly `path` succeeds `successes` more times, then fails with `errno`.
    public static func failFsync(of path: String, after successes: Int = 0, errno: Errno = .ioError) {
        install(
            Rule(path: path, exact: true, operations: [.fsync], failAt: successes + 1, persistent: true, errno: errno))
    }

    /// Removes the rule for `path` (a directory given to ``inject(_:under:failAt:persistent:errno:)``
    /// or a path given to ``failFsync(of:after:errno:)``) and returns it, with its counts.
    @discardableResult
    public static func clear(_ path: String) -> Rule? {
        rules.withLock { rules -> Rule? in
            let removed = rules.removeValue(forKey: path)
            active.store(!rules.isEmpty, ordering: .releasing)
            return removed
        }
    }

    /// Runs `body` with this thread's calls neither counted nor failed by any rule: for a test
    /// that sets up files (a send) while the code under test (a worker on other threads) is
    /// faulted, so the numbering of the worker's calls does not depend on timing.
    public static func bypassing<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        let thread = pthread_self()
        exemptThreads.withLock { _ = $0.insert(thread) }
        defer { exemptThreads.withLock { _ = $0.remove(thread) } }
        return try body()
    }

    private static let exemptThreads = Lock<Set<pthread_t>>([])

    /// The rule for `path` as it stands (its counts so far), or nil.
    public static func rule(_ path: String) -> Rule? {
        rules.withLock { $0[path] }
    }

    private static func install(_ rule: Rule) {
        rules.withLock { rules in
            rules[rule.path] = rule
            active.store(true, ordering: .releasing)
        }
    }

    /// The hook in each wrapper: throws the injected error when a rule fails this call.
    @inline(__always)
    static func check(_ operation: Operation, _ path: String) throws(SystemError) {
        guard active.load(ordering: .acquiring) else { return }
        guard !exemptThreads.withLock({ $0.contains(pthread_self()) }) else { return }
        if let code = fault(operation, path) {
            throw SystemError(operation: operation.rawValue, path: path, errno: code)
        }
    }

    private static func fault(_ operation: Operation, _ path: String) -> Errno? {
        rules.withLock { rules -> Errno? in
            var code: Errno?
            for (key, var rule) in rules where rule.matches(operation, path) {
                rule.calls += 1
                if let first = rule.failAt, rule.calls == first || (rule.persistent && rule.calls > first) {
                    rule.failed += 1
                    code = code ?? rule.errno
                }
                rules[key] = rule
            }
            return code
        }
    }
}

/// Test-only limits on inotify: the kernel's per-user limits, reached for the paths under one
/// directory only, so a test sees `inotify_add_watch` fail with ENOSPC (or `inotify_init1` with
/// EMFILE) as on a machine whose limits are used up, without using them up for everyone else.
/// Kept apart from the file ``FaultInjection/Operation``s: tests that fail every file call in
/// turn must not count the calls of watchers that happen to run beside them.
extension FaultInjection {
    struct InotifyLimits: Sendable {
        /// `inotify_add_watch` calls still allowed; nil: no limit.
        var watches: Int?
        /// `inotify_init1` calls still allowed; nil: no limit.
        var instances: Int?
    }

    private static let inotifyLimits = Lock<[String: InotifyLimits]>([:])
    private static let inotifyActive = Atomic<Bool>(false)

    /// From now on, for paths under `directory` (or equal to it): `inotify_add_watch` succeeds
    /// `watches` more times, then fails with ENOSPC; `inotify_init1` (``Inotify/open(for:)``)
    /// succeeds `instances` more times, then fails with EMFILE. Nil leaves that call alone.
    public static func limitInotify(under directory: String, watches: Int?, instances: Int? = nil) {
        inotifyLimits.withLock { limits in
            limits[directory] = InotifyLimits(watches: watches, instances: instances)
            inotifyActive.store(true, ordering: .releasing)
        }
    }

    /// Removes the limits set for `directory`.
    public static func clearInotifyLimit(under directory: String) {
        inotifyLimits.withLock { limits in
            limits[directory] = nil
            inotifyActive.store(!limits.isEmpty, ordering: .releasing)
        }
    }

    /// The hook in ``Inotify/addWatch(_:path:mask:)``.
    @inline(__always)
    static func checkInotify(watching path: String) throws(SystemError) {
        guard inotifyActive.load(ordering: .acquiring) else { return }
        if spendInotify(path, \.watches) {
            throw SystemError(operation: Inotify.addWatchOperation, path: path, errno: .noSpace)
        }
    }

    /// The hook in ``Inotify/open(for:)``.
    @inline(__always)
    static func checkInotify(opening path: String) throws(SystemError) {
        guard inotifyActive.load(ordering: .acquiring) else { return }
        if spendInotify(path, \.instances) {
            throw SystemError(operation: Inotify.openOperation, path: path, errno: .tooManyOpenFiles)
        }
    }

    /// Counts one call against the limit for `path`; true when it is refused.
    private static func spendInotify(_ path: String, _ allowance: WritableKeyPath<InotifyLimits, Int?>) -> Bool {
        inotifyLimits.withLock { limits -> Bool in
            var refused = false
            for (directory, var limit) in limits
            where path == directory
                || (path.hasPrefix(directory) && path.utf8.dropFirst(directory.utf8.count).first == UInt8(ascii: "/"))
            {
                guard let left = limit[keyPath: allowance] else { continue }
                if left <= 0 {
                    refused = true
                } else {
                    limit[keyPath: allowance] = left - 1
                    limits[directory] = limit
                }
            }
            return refused
        }
    }
}
