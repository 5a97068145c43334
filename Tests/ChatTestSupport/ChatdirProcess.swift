import ChatProcess
import Foundation

/// Runs the built `chatdir` binary as a child process, the way a user or a script would: the one
/// way a test of any target starts it. ``run(_:input:environment:executable:)`` runs a command to
/// its end; ``start(_:environment:launcher:executable:standardInput:standardOutput:standardError:)``
/// leaves one running (a live worker, a server, a `--follow`, a command to interrupt).
///
/// Every child gets the same environment (``environment(_:)``): this process's, with TZ=UTC and
/// NO_COLOR=1 for stable output and no CHATDIR_STORE, so only `--store` picks a store.
public enum ChatdirProcess {
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String

        public init(status: Int32, stdout: String, stderr: String) {
            self.status = status
            self.stdout = stdout
            self.stderr = stderr
        }

        public var lines: [String] {
            stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }
    }

    /// The `chatdir` executable SwiftPM built for this test run.
    public static let executable = builtProduct("chatdir")

    /// The environment every child starts with; `extra` adds to or overrides it.
    public static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "UTC"
        environment["NO_COLOR"] = "1"
        environment.removeValue(forKey: "CHATDIR_STORE")
        for (key, value) in extra { environment[key] = value }
        return environment
    }

    /// Starts `chatdir arguments…` and returns it running. Standard input, output and error are
    /// /dev/null unless given (a `Pipe` or a `FileHandle`, as ``TestProcess`` takes them).
    /// `launcher` runs chatdir through another program: its first word is the program, the rest
    /// its arguments before chatdir's path (`strace -o FILE`, `unshare -U -r sh -c …`).
    /// `executable` runs another chatdir binary (one `make install` put somewhere).
    public static func start(
        _ arguments: [String], environment extra: [String: String] = [:], launcher: [String] = [],
        executable: URL = executable, standardInput: Any? = FileHandle.nullDevice,
        standardOutput: Any? = FileHandle.nullDevice, standardError: Any? = FileHandle.nullDevice
    ) throws -> TestProcess {
        let process = TestProcess()
        if let program = launcher.first {
            process.executableURL = URL(fileURLWithPath: program)
            process.arguments = launcher.dropFirst() + [executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.environment = environment(extra)
        process.standardInput = standardInput
        process.standardOutput = standardOutput
        process.standardError = standardError
        try process.run()
        return process
    }

    /// Starts `chatdir sync --live --store store` with `CHATDIR_TOKEN=token`, stdout and stdin
    /// on /dev/null and stderr in the returned pipe: the live worker as a user leaves it running.
    public static func startLiveWorker(
        store: String, token: String = "alice-token", environment extra: [String: String] = [:],
        launcher: [String] = []
    ) throws -> (process: TestProcess, stderr: Pipe) {
        let errors = Pipe()
        let worker = try start(
            ["sync", "--live", "--store", store],
            environment: extra.merging(["CHATDIR_TOKEN": token]) { old, _ in old },
            launcher: launcher, standardError: errors)
        return (worker, errors)
    }

    /// Runs `chatdir arguments…` to completion with `input` on stdin; `environment` adds to or
    /// overrides ``environment(_:)``. `executable` runs another program instead (`strace` with
    /// `chatdir` among its arguments).
    @discardableResult
    public static func run(
        _ arguments: [String], input: String? = nil, environment extra: [String: String] = [:],
        executable: URL = executable
    ) throws -> Result {
        // posix_spawn, not Foundation's Process, whose run() can crash the whole test process
        // on this toolchain (see ``spawnAndWait(_:_:environment:input:deadline:)``).
        let result = try spawnAndWait(
            executable.path, arguments, environment: environment(extra), input: input.map { Array($0.utf8) })
        if result.timedOut {
            throw DeadlineExceeded(
                command: ([executable.path] + arguments).joined(separator: " "), deadline: .seconds(600),
                stderr: String(decoding: result.stderr, as: UTF8.self))
        }
        return Result(
            status: result.status, stdout: String(decoding: result.stdout, as: UTF8.self),
            stderr: String(decoding: result.stderr, as: UTF8.self))
    }
}
