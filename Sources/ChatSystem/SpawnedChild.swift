#if canImport(Glibc)
    import Glibc
#endif

/// A program started with `posix_spawn(3)` in a process group of its own, its standard input
/// and its output (stdout and stderr together) on pipes this process holds, non-blocking, so
/// one thread can feed and drain it with ``Poll`` and never wedge on a child that does not read.
///
/// What the child gets is ``ChildProcess/spawn(_:environment:standardInput:standardOutput:standardError:searchPath:ownProcessGroup:)``'s:
/// descriptors 0, 1 and 2 only, an empty signal mask, the default signal actions (a hook is an
/// ordinary program).
public struct SpawnedChild: ~Copyable, Sendable {
    public let pid: Int32
    /// The write end of the child's standard input (-1 once closed); ``closeInput()`` gives it EOF.
    private var input: Int32
    /// The read end of the child's standard output and error.
    public let output: FileDescriptor

    /// Starts `arguments[0]` (a path, not searched on PATH) with `environment` (`NAME=value`).
    /// - Throws: ``SystemError`` from `pipe` or `posix_spawn` (ENOENT for a missing program).
    public static func start(_ arguments: [String], environment: [String]) throws(SystemError) -> SpawnedChild {
        let program = arguments.first ?? ""
        // Only chatdir's ends are non-blocking (the flag belongs to the open pipe end, which
        // dup2 shares): the child reads and writes as programs expect, blocking.
        let stdin = try pipe(program, nonBlockingRead: false)
        let stdout: (read: Int32, write: Int32)
        do { stdout = try pipe(program, nonBlockingRead: true) } catch {
            Syscall.close(stdin.read)
            Syscall.close(stdin.write)
            throw error
        }
        let started: Result<pid_t, SystemError> = Result { () throws(SystemError) in
            try ChildProcess.spawn(
                arguments, environment: environment, standardInput: stdin.read, standardOutput: stdout.write,
                standardError: stdout.write, ownProcessGroup: true)
        }
        Syscall.close(stdin.read)
        Syscall.close(stdout.write)
        switch started {
        case .success(let pid):
            return SpawnedChild(pid: pid, input: stdin.write, output: FileDescriptor(owning: stdout.read))
        case .failure(let error):
            Syscall.close(stdin.write)
            Syscall.close(stdout.read)
            throw error
        }
    }

    private init(pid: Int32, input: Int32, output: consuming FileDescriptor) {
        self.pid = pid
        self.input = input
        self.output = output
    }

    deinit {
        if input >= 0 { Syscall.close(input) }
    }

    /// The input descriptor while it is open, for ``Poll``.
    public var inputDescriptor: Int32? { input >= 0 ? input : nil }

    /// Writes what the pipe takes now of `bytes[from...]`; how many bytes went. 0 when the pipe
    /// is full. Throws EPIPE when the child closed its input: call from a thread that called
    /// ``blockBrokenPipeOnThisThread()``, or that SIGPIPE ends the process.
    public func writeInput(_ bytes: [UInt8], from offset: Int) throws(SystemError) -> Int {
        guard let fd = inputDescriptor, offset < bytes.count else { return 0 }
        do {
            return try Syscall.retrying("write", "(standard input of a child)") {
                bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            }
        } catch  where error.isWouldBlock {
            return 0
        }
    }

    /// Blocks SIGPIPE for the calling thread only: a write there to a pipe whose reader left
    /// fails with EPIPE instead of killing the process, while the rest of the process keeps the
    /// default (`chatdir watch | head -1` still ends when head does). A write's SIGPIPE is sent
    /// to the thread that wrote, so it stays pending there, harmlessly.
    public static func blockBrokenPipeOnThisThread() {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
    }

    /// Closes the child's standard input: it reads EOF.
    public mutating func closeInput() {
        if input >= 0 { Syscall.close(input) }
        input = -1
    }

    /// Reads what the child wrote so far into `buffer`: the byte count, 0 at EOF (every holder
    /// of the pipe exited), nil when nothing is there yet.
    public func readOutput(into buffer: inout [UInt8]) throws(SystemError) -> Int? {
        do {
            return try Syscall.read(output.rawValue, into: &buffer, path: "(output of a child)")
        } catch  where error.isWouldBlock {
            return nil
        }
    }

    /// Sends `signal` to the child's whole process group (the shell and whatever it started).
    public func signalGroup(_ signal: Signal) {
        _ = Glibc.kill(-pid, signal.rawValue)
    }

    /// The exit status once the child has ended: its code, or 128 + the signal that killed it.
    /// With `block` false, nil while it still runs. Reaps it (`waitpid(2)`).
    public func wait(block: Bool) -> Int32? {
        var status: Int32 = 0
        let result: pid_t
        do {
            result = try Syscall.retrying("waitpid", "") { waitpid(pid, &status, block ? 0 : WNOHANG) }
        } catch {
            return 127 // ECHILD: reaped already; nothing more to learn
        }
        guard result == pid else { return nil }
        // WIFEXITED / WEXITSTATUS, which do not import as functions.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
    }

    /// A pipe whose two ends are close-on-exec (only the spawn's dup2 copies reach the child),
    /// chatdir's end non-blocking: the read end with `nonBlockingRead`, else the write end.
    private static func pipe(_ program: String, nonBlockingRead: Bool) throws(SystemError) -> (
        read: Int32, write: Int32
    ) {
        var ends: [Int32] = [-1, -1]
        _ = try Syscall.retrying("pipe", program) { ends.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress) } }
        do {
            try Syscall.setFlags(ends[0], nonBlocking: nonBlockingRead, path: program)
            try Syscall.setFlags(ends[1], nonBlocking: !nonBlockingRead, path: program)
        } catch {
            Syscall.close(ends[0])
            Syscall.close(ends[1])
            throw error
        }
        return (ends[0], ends[1])
    }
}
