import Foundation
import Testing

/// Runs each test of a suite on threads of its own instead of Swift's cooperative pool:
/// `@Suite(.ownThreads)`. For suites whose tests block (child processes, blocking sockets,
/// `usleep`, `waitUntilExit`, fsync loops).
///
/// Why: Swift Testing runs every test as a task on the global executor, whose pool has one
/// thread per core (2 here). Two synchronous tests blocked in `readDataToEndOfFile` held both,
/// and every async test in flight (its awaits, its in-process server's tasks, its timeouts)
/// stopped until one of them returned: `swift test` in parallel failed at async deadlines
/// while each suite passed alone. Under this trait the test's task prefers
/// ``ThreadPerJobExecutor`` (SE-0417), so the test body, synchronous or not, runs on a fresh
/// thread; it stays the same task, so `#expect` and `Issue.record` are attributed to the test
/// as usual.
public struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        // Called once for the suite itself (no test case) and once per test case.
        guard testCase != nil else { return try await function() }
        installDeadlineReporter
        try await withTaskExecutorPreference(ThreadPerJobExecutor.shared) { try await function() }
    }
}

/// A child killed at its ``TestProcess/deadline`` fails the test that waited for it (the
/// report comes from `waitUntilExit()`, on the test's own task). Installed once, by the first
/// test under ``OwnThreadsTrait`` (every suite that runs children has it).
private let installDeadlineReporter: Void = {
    TestProcess.deadlineReporter = { message in Issue.record(Comment(rawValue: message)) }
}()

extension Trait where Self == OwnThreadsTrait {
    /// Runs each test on threads of its own, off the cooperative pool (see ``OwnThreadsTrait``).
    public static var ownThreads: Self { Self() }
}

/// A task executor that runs every job on a new thread. A job may block as long as it likes:
/// it holds only its own thread. Jobs of one task never run at once (a task has one job
/// enqueued at a time), so the order of a test's code is unchanged. Stateless, so one instance
/// serves every test.
public final class ThreadPerJobExecutor: TaskExecutor {
    public static let shared = ThreadPerJobExecutor()

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        let thread = Thread { job.runSynchronously(on: executor) }
        thread.name = "test-own-thread"
        thread.start()
    }
}

/// Reads a pipe to its end on a thread of its own (not `DispatchQueue.global()`, whose few
/// threads the Swift runtime's tasks share: with them all blocked, the read never starts and a
/// child that fills its pipe never exits). `wait()` returns the bytes.
public final class BackgroundRead: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var data = Data()

    public init(_ handle: FileHandle) {
        Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }.start()
    }

    /// Waits for the end of the pipe and returns everything read.
    public func wait() -> Data {
        done.wait()
        return data
    }
}
