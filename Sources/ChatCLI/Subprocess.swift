#if canImport(Glibc)
import Glibc
#endif

/// Runs a program found on PATH with the same stdout and stderr, and waits for it.
/// Returns its exit status (127 when it cannot be started). For `chatdir demo`'s `diff -r`.
func runProgram(_ arguments: [String]) -> Int32 {
    guard !arguments.isEmpty else { return 127 }
    var cArguments = arguments.map { strdup($0) }
    cArguments.append(nil)
    defer { cArguments.forEach { free($0) } }
    var pid: pid_t = 0
    let started = posix_spawnp(&pid, arguments[0], nil, nil, cArguments, environ)
    guard started == 0 else { return 127 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 {
        if errno != EINTR { return 127 }
    }
    // WIFEXITED / WEXITSTATUS, which do not import as functions.
    return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
}
