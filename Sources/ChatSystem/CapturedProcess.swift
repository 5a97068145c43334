#if canImport(Glibc)
    import Glibc
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
    /// stderr each in a pipe of its own, until the program exits or `timeout` passes and it is
    /// killed. Each output keeps its first `limit` bytes (the rest is read and dropped, so a
    /// chatty program never blocks on a full pipe). The program inherits only 0, 1 and 2
    /// (``ChildProcess/spawn(_:environment:standardInput:standardOutput:standardError:searchPath:ownProcessGroup:)``).
    ///
    /// The program is done when it exits, not when its pipes close: what it wrote before
    /// exiting is in the pipes then, and is taken without waiting for more. A process it left
    /// running in the background (`sleep 100 &` in a token command) may hold the pipes open for
    /// as long as it likes; nothing waits for it.
    /// `posix_spawnp(3)`, `pipe(2)`, `poll(2)` (on the pipes and the program's ``ExitWatch``, or
    /// every 10 ms without one), `waitpid(2)`, `kill(2)`.
    public static func run(_ arguments: [String], timeout: Duration, limit: Int = 1 << 16) -> CapturedProcess {
        var failed = CapturedProcess(status: 127, standardOutput: [], standardError: [], timedOut: false)
        guard !arguments.isEmpty, let output = try? pipeEnds(), let errors = try? pipeEnds() else { return failed }
        let nothing =
            (try? Syscall.retrying("open", "/dev/null") { Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC) }) ?? -1
        let started = Result { () throws(SystemError) in
            try ChildProcess.spawn(
                arguments, environment: ChildProcess.currentEnvironment, standardInput: nothing,
                standardOutput: output.write, standardError: errors.write, searchPath: true)
        }
        if nothing >= 0 { Syscall.close(nothing) }
        Syscall.close(output.write)
        Syscall.close(errors.write)
        let pid: pid_t
        switch started {
        case .success(let started):
            pid = started
        case .failure(let error):
            Syscall.close(output.read)
            Syscall.close(errors.read)
            failed.standardError = Array("cannot start \(arguments[0]): \(error.errno.description)".utf8)
            return failed
        }
        let deadline = Clock.monotonicNanoseconds() + nanoseconds(timeout)
        // Readable once the program has exited (Linux 5.3); without it, a short poll and a look.
        let watch = ExitWatch(pid)
        let exitWatch = watch?.rawValue ?? -1
        var pipes = Pipes(output: output.read, errors: errors.read, limit: limit)
        var status: Int32 = 0
        var exited = false
        var timedOut = false
        while !exited {
            if reap(pid, &status) {
                exited = true
                break
            }
            let now = Clock.monotonicNanoseconds()
            guard now < deadline else {
                timedOut = true
                break
            }
            let remaining = Int((deadline - now) / 1_000_000) + 1
            let watched = pipes.open + (exitWatch >= 0 ? [exitWatch] : [])
            let wait = exitWatch >= 0 ? remaining : min(remaining, 10)
            guard !watched.isEmpty, let ready = try? Poll.wait(watched, timeoutMilliseconds: wait) else {
                // Both pipes closed and no exit watch: the program is ending; look again shortly.
                SystemThread.sleep(milliseconds: 5)
                continue
            }
            for (fd, result) in zip(watched, ready) where result.readyToRead && fd != exitWatch {
                pipes.read(fd)
            }
        }
        if timedOut {
            // Its failure is ignored on purpose: a program that exited meanwhile is reaped all the same.
            _ = kill(pid, SIGKILL)
            _ = try? Syscall.retrying("waitpid", arguments[0]) { waitpid(pid, &status, 0) }
        } else {
            // What the program wrote before it exited; whatever its descendants write later is not its answer.
            pipes.drain()
        }
        pipes.closeAll()
        // WIFEXITED / WEXITSTATUS, which do not import as functions.
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return CapturedProcess(
            status: exit, standardOutput: pipes.collected(output.read), standardError: pipes.collected(errors.read),
            timedOut: timedOut)
    }

    /// `waitpid(pid, WNOHANG)`: true once the program has exited (its status in `status`), or
    /// when it cannot be waited for (status 127).
    private static func reap(_ pid: pid_t, _ status: inout Int32) -> Bool {
        do {
            return try Syscall.retrying("waitpid", "") { waitpid(pid, &status, WNOHANG) } != 0
        } catch {
            status = 127 << 8
            return true
        }
    }

    /// The read ends of the program's stdout and stderr and what came through each.
    private struct Pipes {
        var open: [Int32]
        var bytes: [Int32: [UInt8]]
        let limit: Int
        var buffer = [UInt8](repeating: 0, count: 4096)

        init(output: Int32, errors: Int32, limit: Int) {
            open = [output, errors]
            bytes = [output: [], errors: []]
            self.limit = limit
        }

        /// One `read(2)` of `fd` (non-blocking): keeps what fits under the limit, closes the
        /// pipe at its end or on an error. Returns the bytes read, 0 when there were none (for
        /// now, or any more).
        @discardableResult
        mutating func read(_ fd: Int32) -> Int {
            let count: Int
            do {
                count = try Syscall.read(fd, into: &buffer, path: "(child output)")
            } catch {
                if error.isWouldBlock { return 0 }
                count = 0
            }
            if count > 0 {
                let room = max(0, limit - (bytes[fd]?.count ?? 0))
                bytes[fd, default: []] += buffer[0..<min(count, room)]
                return count
            }
            // The end of the pipe, or an error on it: nothing more comes either way.
            Syscall.close(fd)
            open.removeAll { $0 == fd }
            return 0
        }

        /// Reads each pipe until it is empty for now (or at its end), at most `limit` bytes
        /// more each, so a descendant that keeps writing cannot hold the caller.
        mutating func drain() {
            for fd in open {
                var taken = 0
                while taken <= limit {
                    let count = read(fd)
                    if count == 0 { break }
                    taken += count
                }
            }
        }

        mutating func closeAll() {
            for fd in open { Syscall.close(fd) }
            open = []
        }

        func collected(_ fd: Int32) -> [UInt8] { bytes[fd] ?? [] }
    }

    /// A pipe whose ends are both close-on-exec, the read end non-blocking.
    private static func pipeEnds() throws(SystemError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        _ = try Syscall.retrying("pipe", "(child output)") {
            ends.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress) }
        }
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
