import ChatSystem
import Foundation
import Glibc

/// A child process for tests that keep one running (a live worker, a server, a process to kill
/// mid-write): the part of Foundation's `Process` the tests use, started with
/// ``ChildProcess/spawn(_:environment:standardInput:standardOutput:standardError:searchPath:ownProcessGroup:)``
/// instead of `Process.run()`, which can crash the whole test process on this toolchain (see
/// ``spawnAndWait(_:_:environment:input:)``).
///
/// Set ``executableURL``, ``arguments``, ``environment`` (nil: this process's) and the standard
/// descriptors (a `Pipe`, a `FileHandle`, or nil to share this process's), then ``run()``. As
/// with `Process`, `run()` closes this process's copy of a pipe's child end, so reading the
/// other end sees end of file once the child and its children close theirs.
public final class TestProcess: @unchecked Sendable {
    public enum TerminationReason: Sendable { case exit, uncaughtSignal }

    // Set before `run()` on one thread, as with `Process`.
    public var executableURL: URL?
    public var arguments: [String]?
    public var environment: [String: String]?
    public var standardInput: Any?
    public var standardOutput: Any?
    public var standardError: Any?

    /// How long the child may run before it is killed (SIGKILL), so a child that hangs fails
    /// its test instead of holding the whole run until CI's timeout; nil for none (the bench's
    /// servers and the crash loop's workers, which run as long as they are measured). Set
    /// before ``run()``.
    public var deadline: Duration? = .seconds(600)

    /// Told, from ``waitUntilExit()`` on the waiting test's thread, that the child was killed at
    /// its deadline (ChatTestSupport records it as the test's issue).
    public nonisolated(unsafe) static var deadlineReporter: (@Sendable (String) -> Void)?

    private struct State {
        var pid: pid_t = 0
        /// The raw `waitpid` status once reaped.
        var status: Int32?
        /// Killed by the watchdog for running past ``deadline``.
        var killedAtDeadline = false
        var reported = false
    }
    private let state = Lock(State())

    public init() {}

    /// Whether the child was killed for running past ``deadline``.
    public var killedAtDeadline: Bool { state.withLock { $0.killedAtDeadline } }

    public var processIdentifier: Int32 { state.withLock { $0.pid } }

    public func run() throws {
        guard let executableURL else { throw POSIXError(.ENOENT) }
        var opened: [Int32] = []
        defer { for fd in opened { close(fd) } }
        func descriptor(_ stream: Any?, _ standard: Int32, childReads: Bool) -> Int32 {
            switch stream {
            case let pipe as Pipe:
                return childReads ? pipe.fileHandleForReading.fileDescriptor : pipe.fileHandleForWriting.fileDescriptor
            case let handle as FileHandle where handle === FileHandle.nullDevice:
                let fd = open("/dev/null", childReads ? O_RDONLY : O_WRONLY)
                opened.append(fd)
                return fd
            case let handle as FileHandle:
                return handle.fileDescriptor
            default:
                return standard
            }
        }
        let input = descriptor(standardInput, 0, childReads: true)
        let output = descriptor(standardOutput, 1, childReads: false)
        let error = descriptor(standardError, 2, childReads: false)
        let environment = ChildProcess.environmentStrings(environment ?? ProcessInfo.processInfo.environment)
        let pid = try ChildProcess.spawn(
            [executableURL.path] + (arguments ?? []), environment: environment,
            standardInput: input, standardOutput: output, standardError: error)
        state.withLock { $0.pid = pid }
        if let deadline { watch(pid, for: deadline) }
        // The child has its copies: ours of the child's ends go, so the parent's ends see EOF.
        if let pipe = standardInput as? Pipe { try? pipe.fileHandleForReading.close() }
        if let pipe = standardOutput as? Pipe { try? pipe.fileHandleForWriting.close() }
        if let pipe = standardError as? Pipe, standardError as AnyObject !== standardOutput as AnyObject {
            try? pipe.fileHandleForWriting.close()
        }
    }

    /// Kills the child (SIGKILL) if it has not exited `deadline` after it started: a thread
    /// waits on its ``ExitWatch`` (which does not reap it; ``waitUntilExit()`` still does).
    private func watch(_ pid: pid_t, for deadline: Duration) {
        guard let exit = ExitWatch(pid) else { return }
        let (seconds, attoseconds) = deadline.components
        let milliseconds = Int(clamping: seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
        Thread.detachNewThread { [state] in
            guard !exit.waitForExit(timeoutMilliseconds: milliseconds) else { return }
            state.withLock { state in
                guard state.status == nil else { return }
                state.killedAtDeadline = true
                kill(pid, SIGKILL)
            }
        }
    }

    /// Blocks until the child has ended (reaping it, unless another thread already did); a
    /// child killed at its ``deadline`` is reported once (``deadlineReporter``).
    public func waitUntilExit() {
        let pid = processIdentifier
        guard pid > 0 else { return }
        while state.withLock({ $0.status }) == nil {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, 0)
            if reaped == pid {
                state.withLock { $0.status = status }
            } else if reaped < 0, errno != EINTR {
                // Another thread reaped it: its status arrives in a moment.
                usleep(1_000)
            }
        }
        let report = state.withLock { state -> Bool in
            guard state.killedAtDeadline, !state.reported else { return false }
            state.reported = true
            return true
        }
        if report, let deadline {
            let command = ([executableURL?.path ?? "?"] + (arguments ?? [])).joined(separator: " ")
            Self.deadlineReporter?("`\(command)` was still running \(deadline) after it started and was killed")
        }
    }

    public var isRunning: Bool {
        state.withLock { state in
            guard state.pid > 0, state.status == nil else { return false }
            var status: Int32 = 0
            let reaped = waitpid(state.pid, &status, WNOHANG)
            if reaped == state.pid {
                state.status = status
                return false
            }
            // ECHILD: another thread's waitUntilExit reaped it and is about to say how it ended.
            return !(reaped < 0 && errno == ECHILD)
        }
    }

    /// The exit code, or the signal's number when a signal ended it (as `Process` has it); 0
    /// while it runs.
    public var terminationStatus: Int32 {
        guard let status = state.withLock({ $0.status }) else { return 0 }
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : status & 0x7F
    }

    public var terminationReason: TerminationReason {
        guard let status = state.withLock({ $0.status }) else { return .exit }
        return status & 0x7F == 0 ? .exit : .uncaughtSignal
    }

    /// SIGINT, as `Process.interrupt()`.
    public func interrupt() { signal(SIGINT) }

    /// SIGTERM, as `Process.terminate()`.
    public func terminate() { signal(SIGTERM) }

    private func signal(_ number: Int32) {
        state.withLock { state in
            if state.pid > 0, state.status == nil { kill(state.pid, number) }
        }
    }
}
