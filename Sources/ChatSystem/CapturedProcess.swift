#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A program run to completion with its output kept: what a token command prints.
public struct CapturedProcess: Sendable {
    /// The exit status, 128 + the signal that ended it, or 127 when it could not be started.
    public var status: Int32
    public var standardOutput: [UInt8]
    public var standardError: [UInt8]
    /// Whether it was killed (SIGKILL) for running past its time.
    public var timedOut: Bool

    /// Runs `arguments` (the program found on PATH) with stdin on /dev/null and stdout and
    /// stderr each in a pipe of its own, read until both close and the program exits, or until
    /// `timeout` passes and it is killed. Each output keeps its first `limit` bytes (the rest is
    /// read and dropped, so a chatty program never blocks on a full pipe). The program inherits
    /// only 0, 1 and 2 (``ChildProcess/spawn(_:environment:standardInput:standardOutput:standardError:searchPath:ownProcessGroup:)``).
    /// `posix_spawnp(3)`, `pipe(2)`, `poll(2)`, `waitpid(2)`, `kill(2)`.
    public static func run(_ arguments: [String], timeout: Duration, limit: Int = 1 << 16) -> CapturedProcess {
        var failed = CapturedProcess(status: 127, standardOutput: [], standardError: [], timedOut: false)
        guard !arguments.isEmpty, let output = try? pipeEnds(), let errors = try? pipeEnds() else { return failed }
        let nothing = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
        let started = Result { () throws(SystemError) in
            try ChildProcess.spawn(arguments, environment: ChildProcess.currentEnvironment, standardInput: nothing,
                                   standardOutput: output.write, standardError: errors.write, searchPath: true)
        }
        if nothing >= 0 { Syscall.close(nothing) }
        Syscall.close(output.write)
        Syscall.close(errors.write)
        let pid: pid_t
        switch started {
        case let .success(started):
            pid = started
        case let .failure(error):
            Syscall.close(output.read)
            Syscall.close(errors.read)
            failed.standardError = Array("cannot start \(arguments[0]): \(error.errno.description)".utf8)
            return failed
        }
        let deadline = Clock.monotonicNanoseconds() + nanoseconds(timeout)
        var open = [output.read, errors.read]
        var collected: [Int32: [UInt8]] = [output.read: [], errors.read: []]
        var timedOut = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !open.isEmpty {
            let now = Clock.monotonicNanoseconds()
            guard now < deadline else { timedOut = true; break }
            let ready = (try? Poll.wait(open, timeoutMilliseconds: Int((deadline - now) / 1_000_000) + 1)) ?? open.map { _ in PollResult(readable: false, hungUp: true) }
            for (fd, result) in zip(open, ready) where result.readyToRead {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    let room = max(0, limit - (collected[fd]?.count ?? 0))
                    collected[fd, default: []] += buffer[0..<min(count, room)]
                } else if count == 0 || (Errno.current != .interrupted && Errno.current != .wouldBlock) {
                    Syscall.close(fd)
                    open.removeAll { $0 == fd }
                }
            }
        }
        for fd in open { Syscall.close(fd) }
        // Both pipes closed: the program is ending (or closed them and went on, which the
        // deadline also bounds).
        var status: Int32 = 0
        while true {
            if timedOut { kill(pid, SIGKILL) }
            let reaped = waitpid(pid, &status, timedOut ? 0 : WNOHANG)
            if reaped == pid { break }
            if reaped < 0 {
                if Errno.current == .interrupted { continue }
                status = 127 << 8
                break
            }
            // Still running with its pipes closed: wait for it, within the same deadline.
            if Clock.monotonicNanoseconds() >= deadline { timedOut = true } else { usleep(5_000) }
        }
        // WIFEXITED / WEXITSTATUS, which do not import as functions.
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return CapturedProcess(status: exit, standardOutput: collected[output.read] ?? [], standardError: collected[errors.read] ?? [], timedOut: timedOut)
    }

    /// A pipe whose ends are both close-on-exec, the read end non-blocking.
    private static func pipeEnds() throws(SystemError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        _ = try Syscall.retrying("pipe", "(child output)") { ends.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress) } }
        do {
            try Syscall.setFlags(ends[0], nonBlocking: true, path: "(child output)")
            try Syscall.setFlags(ends[1], nonBlocking: false, path: "(child output)")
        } catch {
            Syscall.close(ends[0])
            Syscall.close(ends[1])
            throw error
        }
        return (ends[0], ends[1])
    }

    private static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        return UInt64(clamping: seconds) &* 1_000_000_000 &+ UInt64(clamping: attoseconds / 1_000_000_000)
    }
}
