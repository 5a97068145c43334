import ChatSystem

#if canImport(Glibc)
    import Glibc
#endif

/// What went wrong, in words for the person who ran the tool (printed on stderr, exit 1).
struct LatencyFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// One process this tool started: what to call it in a message, and the file its output goes to.
struct Child: Sendable {
    let name: String
    let pid: pid_t
    /// Where its stdout and stderr go (nil: a pseudo-terminal this tool reads).
    let log: String?
}

/// Every process this tool starts, so that each is stopped on every way out (the end, a
/// failure, the deadline, Ctrl-C) and a child that dies early is noticed and named.
///
/// Children start with posix_spawn(3) in a session of their own (so a Ctrl-C at this tool's
/// terminal reaches this tool, which stops them, rather than all of them at once), with the
/// signals this tool ignores set back to their defaults, and standard input, output and error
/// on a pseudo-terminal's slave or on /dev/null and a log file.
final class Children: @unchecked Sendable {
    private let running = Lock<[Child]>([])
    /// For children without a log (on a pseudo-terminal): what they last wrote, by pid.
    private let outputs = Lock<[pid_t: @Sendable () -> String]>([:])
    /// The environment every child gets, before each one's own additions.
    private let baseEnvironment: [String: String]

    init() {
        var environment = Sys.processEnvironment()
        // Nothing of the caller's chatdir settings may leak into the measured processes.
        for key in environment.keys where key.hasPrefix("CHATDIR_") { environment.removeValue(forKey: key) }
        environment["NO_COLOR"] = "1"
        environment["TZ"] = "UTC"
        baseEnvironment = environment
    }

    enum Output {
        /// Standard input, output and error on this pseudo-terminal slave, which becomes the
        /// child's controlling terminal.
        case terminal(String)
        /// Standard input from /dev/null, output and error appended to this file.
        case log(String)
    }

    /// Starts `arguments` (`arguments[0]` is a path) with `environment` added to the base one.
    func spawn(_ name: String, _ arguments: [String], environment: [String: String] = [:], output: Output)
        throws(LatencyFailure) -> Child
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGWINCH, SIGQUIT] { sigaddset(&defaults, signal) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &mask)
        // POSIX_SPAWN_SETSID (glibc's 0x80) is not imported without _GNU_SOURCE. glibc runs
        // setsid before the file actions, so opening the slave below makes it the child's
        // controlling terminal.
        let setSessionID: Int32 = 0x80
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | setSessionID))
        let log: String?
        switch output {
        case .terminal(let slave):
            posix_spawn_file_actions_addopen(&actions, 0, slave, O_RDWR, 0)
            posix_spawn_file_actions_adddup2(&actions, 0, 1)
            posix_spawn_file_actions_adddup2(&actions, 0, 2)
            log = nil
        case .log(let path):
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 1, path, O_WRONLY | O_CREAT | O_APPEND, 0o600)
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
            log = path
        }
        var merged = baseEnvironment
        for (key, value) in environment { merged[key] = value }
        var pid: pid_t = 0
        // Registered under the lock together with the spawn, so a cleanup racing it (the
        // deadline, a signal) either sees the child or runs before it exists.
        let spawned: Int32 = ChildProcess.withCStrings(arguments) { argv in
            ChildProcess.withCStrings(ChildProcess.environmentStrings(merged)) { envp in
                running.withLock { list in
                    let result = posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
                    if result == 0 { list.append(Child(name: name, pid: pid, log: log)) }
                    return result
                }
            }
        }
        guard spawned == 0 else {
            throw LatencyFailure("cannot start \(name) (\(arguments[0])): \(String(cString: strerror(spawned)))")
        }
        return Child(name: name, pid: pid, log: log)
    }

    /// Where a failure message finds the last output of `pid`, a child without a log file.
    func describeOutput(of pid: pid_t, _ output: @escaping @Sendable () -> String) {
        outputs.withLock { $0[pid] = output }
    }

    /// Throws, naming the child and showing the end of its log, when one of them has exited.
    func check(while doing: String) throws(LatencyFailure) {
        let ended: (Child, Int32)? = running.withLock { list in
            for (index, child) in list.enumerated() {
                var status: Int32 = 0
                if waitpid(child.pid, &status, WNOHANG) == child.pid {
                    list.remove(at: index)
                    return (child, status)
                }
            }
            return nil
        }
        guard let (child, status) = ended else { return }
        let output =
            child.log == nil
            ? outputs.withLock { $0[child.pid] }.map { "; the last it wrote:\n" + $0() } ?? ""
            : Self.tail(of: child.log)
        throw LatencyFailure("\(child.name) (pid \(child.pid)) \(Self.describe(status)) while \(doing)" + output)
    }

    /// Runs a child to its end (one that is meant to end: seed, init, cp); throws unless it exits 0.
    func run(
        _ name: String, _ arguments: [String], environment: [String: String] = [:], log: String, timeoutSeconds: Int
    ) throws(LatencyFailure) {
        let child = try spawn(name, arguments, environment: environment, output: .log(log))
        let deadline = Clock.monotonicMilliseconds() + timeoutSeconds * 1000
        while true {
            let status: Int32? = running.withLock { list in
                var status: Int32 = 0
                guard waitpid(child.pid, &status, WNOHANG) == child.pid else { return nil }
                list.removeAll { $0.pid == child.pid }
                return status
            }
            if let status {
                guard status == 0 else { throw LatencyFailure("\(name) \(Self.describe(status))" + Self.tail(of: log)) }
                return
            }
            guard Clock.monotonicMilliseconds() < deadline else {
                throw LatencyFailure("\(name) did not finish within \(timeoutSeconds) s" + Self.tail(of: log))
            }
            SystemThread.sleep(milliseconds: 5)
        }
    }

    /// Stops `child` (SIGTERM, then SIGKILL after 5 s) if it still runs.
    func stop(_ child: Child) {
        let list = running.withLock { list in
            let found = list.filter { $0.pid == child.pid }
            list.removeAll { $0.pid == child.pid }
            return found
        }
        Self.terminate(list)
    }

    /// Stops every child still running: SIGTERM to all, then SIGKILL to those alive after 5 s.
    func stopAll() {
        let list = running.withLock { list in
            let all = list
            list = []
            return all
        }
        Self.terminate(list)
    }

    private static func terminate(_ children: [Child]) {
        guard !children.isEmpty else { return }
        for child in children { kill(child.pid, SIGTERM) }
        var left = children
        let deadline = Clock.monotonicMilliseconds() + 5000
        while !left.isEmpty, Clock.monotonicMilliseconds() < deadline {
            left.removeAll { child in
                var status: Int32 = 0
                let result = waitpid(child.pid, &status, WNOHANG)
                return result == child.pid || (result < 0 && errno == ECHILD)
            }
            if !left.isEmpty { SystemThread.sleep(milliseconds: 10) }
        }
        for child in left {
            kill(child.pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(child.pid, &status, 0)
        }
    }

    /// "exited with status 3" or "was killed by signal 9", from a waitpid status.
    static func describe(_ status: Int32) -> String {
        // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out (the macros are not imported).
        status & 0x7F == 0 ? "exited with status \((status >> 8) & 0xFF)" : "was killed by signal \(status & 0x7F)"
    }

    /// The last lines of a child's log, indented, for a failure message ("" when there is none).
    static func tail(of log: String?, lines count: Int = 15) -> String {
        guard let log, let bytes = Scratch.read(log), !bytes.isEmpty else { return "" }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .suffix(count + 1)
        return "; the end of \(log):\n" + lines.map { "  | " + $0 }.joined(separator: "\n")
    }
}
