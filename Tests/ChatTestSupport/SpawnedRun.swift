import ChatSystem
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
    /// Whether it was killed (SIGKILL) for running past the deadline it was given.
    public var timedOut = false
}

/// A child that ran past its deadline: the test that waited for it fails with this, instead of
/// the whole run hanging until CI's timeout.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    public var command: String
    public var deadline: Duration
    public var stderr: String

    public init(command: String, deadline: Duration, stderr: String) {
        self.command = command
        self.deadline = deadline
        self.stderr = stderr
    }

    public var description: String {
        "`\(command)` was still running \(deadline) after it started and was killed; its stderr: \(stderr)"
    }
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
/// The child starts as chatdir starts its own children (``ChildProcess/spawn(_:environment:standardInput:standardOutput:standardError:searchPath:ownProcessGroup:)``):
/// standard input, output and error on pipes and no other descriptor (another test's pipe
/// inherited by this child would keep that test waiting for an end of file), an empty signal
/// mask and the default signal actions.
///
/// A child still running `deadline` after it started is killed (SIGKILL) and its result says
/// ``SpawnedRunResult/timedOut``; the wait for its output ends then too, even while a process
/// it left behind holds the pipes.
public func spawnAndWait(
    _ executable: String, _ arguments: [String], environment: [String: String], input: [UInt8]? = nil,
    deadline: Duration = .seconds(600)
) throws -> SpawnedRunResult {
    let stdin = try cloexecPipe()
    let stdout = try cloexecPipe()
    let stderr = try cloexecPipe()
    let spawned = Result { () throws(SystemError) in
        try ChildProcess.spawn(
            [executable] + arguments, environment: ChildProcess.environmentStrings(environment),
            standardInput: stdin.read, standardOutput: stdout.write, standardError: stderr.write, searchPath: true)
    }
    close(stdin.read)
    close(stdout.write)
    close(stderr.write)
    let pid: pid_t
    switch spawned {
    case .success(let started):
        pid = started
    case .failure(let error):
        close(stdin.write)
        close(stdout.read)
        close(stderr.read)
        throw error
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
    let end = ContinuousClock.now + deadline
    var timedOut = false
    while !open.isEmpty {
        var polled = open.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        let left = end - ContinuousClock.now
        guard left > .zero else {
            timedOut = true
            kill(pid, SIGKILL)
            break
        }
        let milliseconds = Int32(
            clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
        let ready = poll(&polled, nfds_t(polled.count), milliseconds)
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
                if entry.isError {
                    errors.append(contentsOf: buffer[0..<count])
                } else {
                    output.append(contentsOf: buffer[0..<count])
                }
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
    // Both pipes closed, yet the child may still run (it closed them): the same deadline holds.
    while !timedOut {
        let reaped = waitpid(pid, &status, WNOHANG)
        if reaped == pid { break }
        if reaped < 0, errno != EINTR { break }
        if ContinuousClock.now >= end {
            timedOut = true
            kill(pid, SIGKILL)
        } else {
            usleep(2_000)
        }
    }
    if timedOut { while waitpid(pid, &status, 0) < 0, errno == EINTR {} }
    // The input thread ends once the child's end of stdin is gone (closed, or killed).
    written.wait()
    let signal = status & 0x7f
    if signal != 0 {
        return SpawnedRunResult(status: signal, signaled: true, stdout: output, stderr: errors, timedOut: timedOut)
    }
    return SpawnedRunResult(
        status: (status >> 8) & 0xff, signaled: false, stdout: output, stderr: errors, timedOut: timedOut)
}

private func cloexecPipe() throws -> (read: Int32, write: Int32) {
    var ends: [Int32] = [-1, -1]
    // pipe2(O_CLOEXEC) is a GNU extension the Glibc module leaves out; the flag is set at once
    // after (a child spawned in between by another thread closes what it inherits anyway).
    guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    return (ends[0], ends[1])
}
