#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
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

    /// Calls `body` with `strings` as a NULL-terminated array of C strings (an `argv` or an
    /// `envp` for `posix_spawn`), freed when it returns.
    public static func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) throws -> Result) rethrows -> Result {
        let pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        return try body(pointers)
    }

    /// `environment` as `NAME=value` strings, for ``withCStrings(_:_:)``.
    public static func environmentStrings(_ environment: [String: String]) -> [String] {
        environment.map { "\($0.key)=\($0.value)" }
    }
}
