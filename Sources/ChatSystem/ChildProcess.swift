#if canImport(Glibc)
    import Glibc
#endif

/// Starting programs: `posix_spawnp(3)` and `waitpid(2)`.
public enum ChildProcess {
    /// Runs a program found on PATH with this process's stdout and stderr, and waits for it.
    /// Returns its exit status, 128 + the signal that killed it, or 127 when it cannot be started.
    public static func run(_ arguments: [String]) -> Int32 {
        guard !arguments.isEmpty else { return 127 }
        var pid: pid_t = 0
        let started = withCStrings(arguments) { argv in posix_spawnp(&pid, arguments[0], nil, nil, argv, environ) }
        guard started == 0 else { return 127 }
        var status: Int32 = 0
        do {
            _ = try Syscall.retrying("waitpid", arguments[0]) { waitpid(pid, &status, 0) }
        } catch {
            return 127
        }
        // WIFEXITED / WEXITSTATUS, which do not import as functions.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// How ``spawn(_:environment:standardInput:standardOutput:standardError:searchPath:ownProcessGroup:)``
    /// starts a program. Every chatdir child gets the same: descriptors 0, 1 and 2 and no
    /// other, an empty signal mask, and the default action for the signals chatdir blocks or
    /// ignores for itself (a child is an ordinary program).
    public static let defaultSignals: [Int32] = [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD]

    /// Starts `arguments[0]` with `standardInput`, `standardOutput` and `standardError` as its
    /// descriptors 0, 1 and 2 (dup2'd in the child; the caller closes its copies), every other
    /// descriptor closed in the child, an empty signal mask and ``defaultSignals`` at their
    /// default action. `searchPath` looks the program up on PATH (`posix_spawnp`); otherwise
    /// `arguments[0]` is a path. `ownProcessGroup` puts it in a new process group (so a signal
    /// to the group reaches whatever it starts). Returns its pid.
    ///
    /// Inherited descriptors are closed by glibc's closefrom action in the child, after the
    /// dup2s: a list of open descriptors made beforehand would race with other threads opening
    /// and closing theirs (one opened after the list leaks, one closed after it fails the spawn).
    /// - Throws: ``SystemError`` with posix_spawn's errno (ENOENT for a missing program).
    public static func spawn(
        _ arguments: [String], environment: [String], standardInput: Int32, standardOutput: Int32,
        standardError: Int32, searchPath: Bool = false, ownProcessGroup: Bool = false
    ) throws(SystemError) -> pid_t {
        guard let program = arguments.first else {
            throw SystemError(operation: "posix_spawn", path: "", errno: .invalidArgument)
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
        posix_spawn_file_actions_adddup2(&actions, standardOutput, 1)
        posix_spawn_file_actions_adddup2(&actions, standardError, 2)
        if let closeFrom = addCloseFrom {
            _ = closeFrom(&actions, 3)
        } else {
            // An older glibc: chatdir's own descriptors are close-on-exec; close what it inherited.
            let open = (try? Sys.listDirectoryIfPresent("/proc/self/fd")) ?? []
            for fd in open.compactMap({ Int32($0) }) where fd > 2 {
                posix_spawn_file_actions_addclose(&actions, fd)
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in defaultSignals { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        if ownProcessGroup {
            posix_spawnattr_setpgroup(&attributes, 0)
            flags |= POSIX_SPAWN_SETPGROUP
        }
        posix_spawnattr_setflags(&attributes, Int16(flags))
        var pid: pid_t = 0
        let started = withCStrings(arguments) { argv in
            withCStrings(environment) { envp in
                searchPath
                    ? posix_spawnp(&pid, program, &actions, &attributes, argv, envp)
                    : posix_spawn(&pid, program, &actions, &attributes, argv, envp)
            }
        }
        guard started == 0 else {
            throw SystemError(operation: "posix_spawn", path: program, errno: Errno(rawValue: started))
        }
        return pid
    }

    /// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34 and later), found at run time: the
    /// Glibc module does not declare it (it is a GNU extension).
    private static let addCloseFrom:
        (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
            else { return nil }
            return unsafeBitCast(
                symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
        }()

    /// The current environment as `NAME=value` strings.
    public static var currentEnvironment: [String] {
        var strings: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            strings.append(String(cString: pointer))
            entry += 1
        }
        return strings
    }

    /// Calls `body` with `strings` as a NULL-terminated array of C strings (an `argv` or an
    /// `envp` for `posix_spawn`), freed when it returns.
    public static func withCStrings<Result>(
        _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) throws -> Result
    ) rethrows -> Result {
        let pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return try body(pointers)
    }

    /// `environment` as `NAME=value` strings, for ``withCStrings(_:_:)``.
    public static func environmentStrings(_ environment: [String: String]) -> [String] {
        environment.map { "\($0.key)=\($0.value)" }
    }
}

/// Waiting for a child's end without reaping it: a `pidfd_open(2)` descriptor polls readable
/// once the process has exited (Linux 5.3, glibc 2.36), so a caller can bound the wait with a
/// timeout and still leave the reaping (`waitpid`) to whoever owns the child.
public final class ExitWatch: Sendable {
    /// The pidfd; poll it with others (``Poll/wait(_:writable:timeoutMilliseconds:)``).
    public let rawValue: Int32

    /// A watch on `pid`; nil when the system has no pidfds (or the process is gone already).
    public init?(_ pid: pid_t) {
        guard let open = pidfdOpen else { return nil }
        let fd = open(pid, 0)
        guard fd >= 0 else { return nil }
        rawValue = fd
    }

    /// Whether the process exited within `timeoutMilliseconds` (-1: for ever).
    public func waitForExit(timeoutMilliseconds: Int) -> Bool {
        (try? Poll.wait([rawValue], timeoutMilliseconds: timeoutMilliseconds).first?.readyToRead) ?? true
    }

    deinit {
        Syscall.close(rawValue)
    }
}

/// glibc's `pidfd_open` (since 2.36), found at run time as FileDescriptor's `syncfs` is.
private let pidfdOpen: (@convention(c) (pid_t, UInt32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pidfd_open") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (pid_t, UInt32) -> Int32).self)
}()
