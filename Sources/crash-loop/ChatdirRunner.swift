import ChatProcess
import Foundation

/// Runs the built `chatdir` binary as a user would: to completion (stdout captured, stderr to a
/// log file), or in the background for a later SIGKILL.
struct ChatdirRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var trimmed: String { stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    let executable: URL
    /// Where every child's stderr goes (appended), so a failure can be read after the fact.
    let log: FileHandle
    let environment: [String: String]

    init(executable: String, logPath: String, token: String) throws {
        self.executable = URL(fileURLWithPath: executable)
        let fd = open(logPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RunnerError("cannot open the log \(logPath): errno \(errno)") }
        log = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var environment = ProcessInfo.processInfo.environment
        environment["CHATDIR_TOKEN"] = token
        environment["NO_COLOR"] = "1"
        environment.removeValue(forKey: "CHATDIR_STORE")
        self.environment = environment
    }

    /// Starts `chatdir arguments…`; stdout goes to `stdout` (a pipe the caller reads) or the log.
    /// A `TestProcess` (posix_spawn), not Foundation's `Process`, whose `run()` can crash the
    /// caller on this toolchain (swift-corelibs-foundation#5472).
    func start(_ arguments: [String], stdout: Pipe? = nil) throws -> TestProcess {
        let process = TestProcess()
        process.deadline = nil // a worker runs until the loop kills it
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = stdout ?? log
        process.standardError = log
        try process.run()
        return process
    }

    /// Runs `chatdir arguments…` to the end and returns its exit status and stdout; with
    /// `killAfter`, SIGKILLs it that many microseconds after the start if it still runs
    /// (the status is then 128 + 9 and stdout is not an acknowledgement).
    func run(_ arguments: [String], killAfter: UInt32? = nil) throws -> Result {
        let pipe = Pipe()
        let process = try start(arguments, stdout: pipe)
        if let killAfter {
            usleep(killAfter)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        // A command that hangs is a finding, not a loop that never ends: SIGTERM after 120 s
        // (a status the callers report, since they expect 0 or SIGKILL).
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem { kill(pid, SIGTERM) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 120, execute: watchdog)
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        let status =
            process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return Result(status: status, stdout: String(decoding: data, as: UTF8.self))
    }

    /// Empties the log (between rounds, so it holds only the round that failed).
    func truncateLog() { ftruncate(log.fileDescriptor, 0) }
}

struct RunnerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
