import Foundation
import Glibc

/// What a program run to its end left: its exit status (or the number of the signal that ended
/// it, as `Process.terminationStatus` has it) and everything it wrote.
public struct SpawnedRunResult: Sendable {
    public var status: Int32
    /// Whether a signal ended it (then `status` is the signal's number).
    public var signaled: Bool
    public var stdout: Data
    public var stderr: Data
}

/// Runs `executable arguments…` to its end with `posix_spawn(3)`, `input` on its standard input
/// (then end of file), and returns its status and output: for tests that run a child and wait.
///
/// Why not Foundation's `Process`: on this toolchain (swift-corelibs-foundation in Swift 6.3.1)
/// `Process.run()` scans `/proc/self/fd` copying the whole 256-byte `d_name` of each record
/// (`findMaximumOpenFromProcSelfFD`), which over-reads glibc's buffer; when the buffer ends at
/// an unmapped page the whole test process dies with SIGSEGV inside `Process.run()`. With the
/// suite spawning a few thousand children, that ended about one parallel run in five (upstream:
/// swift-corelibs-foundation#5472). The same defect chatdir fixed in its own `Sys.listDirectory`.
///
/// The child gets standard input, output and error on pipes, no other descriptor (every other
/// is closed in the child: another test's pipe inherited by this child would keep that test
/// waiting for an end of file), an empty signal mask and the default action for the signals a
/// shell's child would have.
public func spawnAndWait(_ executable: String, _ arguments: [String], environment: [String: String], input: [UInt8]? = nil) throws -> SpawnedRunResult {
    let stdin = try cloexecPipe()
    let stdout = try cloexecPipe()
    let stderr = try cloexecPipe()
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, stdin.read, 0)
    posix_spawn_file_actions_adddup2(&actions, stdout.write, 1)
    posix_spawn_file_actions_adddup2(&actions, stderr.write, 2)
    if let closeFrom = addCloseFrom { _ = closeFrom(&actions, 3) }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var empty = sigset_t()
    sigemptyset(&empty)
    posix_spawnattr_setsigmask(&attributes, &empty)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for signal in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD] { sigaddset(&defaults, signal) }
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    var pid: pid_t = 0
    let argv = [executable] + arguments
    let envp = environment.map { "\($0.key)=\($0.value)" }
    let spawned = withCStringArray(argv) { argvPointers in
        withCStringArray(envp) { envpPointers in
            posix_spawnp(&pid, executable, &actions, &attributes, argvPointers, envpPointers)
        }
    }
    close(stdin.read)
    close(stdout.write)
    close(stderr.write)
    guard spawned == 0 else {
        close(stdin.write)
        close(stdout.read)
        close(stderr.read)
        throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO)
    }

    // Standard input is written on a thread of its own (a child may answer before it has read
    // everything), with SIGPIPE blocked there: a child that exits without reading is no crash.
    let written = DispatchSemaphore(value: 0)
    let inputBytes = input ?? []
    let inputFD = stdin.write
    Thread.detachNewThread {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        sigaddset(&blocked, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        var offset = 0
        while offset < inputBytes.count {
            let count = inputBytes[offset...].withUnsafeBytes { write(inputFD, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            offset += count
        }
        close(inputFD)
        written.signal()
    }

    var output = Data()
    var errors = Data()
    var open: [(fd: Int32, isError: Bool)] = [(stdout.read, false), (stderr.read, true)]
    var buffer = [UInt8](repeating: 0, count: 65536)
    while !open.isEmpty {
        var polled = open.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        let ready = poll(&polled, nfds_t(polled.count), -1)
        if ready < 0 {
            if errno == EINTR { continue }
            break
        }
        var stillOpen: [(fd: Int32, isError: Bool)] = []
        for (index, entry) in open.enumerated() {
            guard polled[index].revents != 0 else {
                stillOpen.append(entry)
                continue
            }
            let count = buffer.withUnsafeMutableBytes { read(entry.fd, $0.baseAddress, $0.count) }
            if count > 0 {
                if entry.isError { errors.append(contentsOf: buffer[0..<count]) } else { output.append(contentsOf: buffer[0..<count]) }
                stillOpen.append(entry)
            } else if count < 0, errno == EINTR || errno == EAGAIN {
                stillOpen.append(entry)
            } else {
                close(entry.fd)
            }
        }
        open = stillOpen
    }
    for entry in open { close(entry.fd) }

    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    written.wait()
    let signal = status & 0x7f
    if signal != 0 {
        return SpawnedRunResult(status: signal, signaled: true, stdout: output, stderr: errors)
    }
    return SpawnedRunResult(status: (status >> 8) & 0xff, signaled: false, stdout: output, stderr: errors)
}

private func cloexecPipe() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    // pipe2(O_CLOEXEC) is a GNU extension the Glibc module leaves out; the flag is set at once
    // after (a child spawned in between by another thread closes what it inherits anyway).
    guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    return (ends[0], ends[1])
}

private func withCStringArray<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
    let pointers = strings.map { strdup($0) } + [nil]
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}

/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc module
/// does not declare.
private let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
}()
