import Foundation
import Testing
import ChatTestSupport

/// Reads `handle` on a thread of its own until its end, handing over each complete line (without
/// its newline) as it arrives, then calls `ended`: for children that keep running.
func readLines(of handle: FileHandle, _ line: @escaping @Sendable (String) -> Void, ended: @escaping @Sendable () -> Void = {}) {
    Thread.detachNewThread {
        var pending = Data()
        while true {
            let data = handle.availableData
            if data.isEmpty { break }
            pending.append(data)
            while let newline = pending.firstIndex(of: 0x0A) {
                line(String(decoding: pending[pending.startIndex..<newline], as: UTF8.self))
                pending.removeSubrange(pending.startIndex...newline)
            }
        }
        ended()
    }
}

/// Runs the built `chatdir` binary as a child process, the way a user or a script would.
struct ChatdirProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    }

    /// The `chatdir` executable SwiftPM built for this test run.
    static let executable = builtProduct("chatdir")

    /// Starts `chatdir sync --live --store store` with `CHATDIR_TOKEN=token`, stdout and stdin
    /// on /dev/null and stderr in the returned pipe: the live worker as a user leaves it running.
    /// `launcher` (a program and its arguments) runs it, when given.
    static func startLiveWorker(store: String, token: String = "alice-token", environment extra: [String: String] = [:],
                                launcher: [String] = []) throws -> (process: TestProcess, stderr: Pipe) {
        let worker = TestProcess()
        worker.executableURL = launcher.first.map { URL(fileURLWithPath: $0) } ?? executable
        worker.arguments = Array(launcher.dropFirst()) + (launcher.isEmpty ? [] : [executable.path]) + ["sync", "--live", "--store", store]
        var environment = ProcessInfo.processInfo.environment
        environment["CHATDIR_TOKEN"] = token
        for (key, value) in extra { environment[key] = value }
        worker.environment = environment
        let errors = Pipe()
        worker.standardError = errors
        worker.standardOutput = FileHandle.nullDevice
        worker.standardInput = FileHandle.nullDevice
        try worker.run()
        return (worker, errors)
    }

    /// Runs `chatdir arguments…` to completion with `input` on stdin; TZ=UTC and no colour for
    /// stable output; `environment` adds to or overrides the inherited environment. `executable`
    /// runs another program instead (`strace` with `chatdir` among its arguments).
    @discardableResult
    static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:], executable: URL = executable) throws -> Result {
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = "UTC"
        env["NO_COLOR"] = "1"
        env.removeValue(forKey: "CHATDIR_STORE")
        for (key, value) in environment { env[key] = value }
        // posix_spawn, not Foundation's Process, whose run() can crash the whole test process
        // on this toolchain (see ``spawnAndWait(_:_:environment:input:)``).
        let result = try spawnAndWait(executable.path, arguments, environment: env, input: input.map { Array($0.utf8) })
        if result.timedOut {
            throw DeadlineExceeded(command: ([executable.path] + arguments).joined(separator: " "), deadline: .seconds(600), stderr: String(decoding: result.stderr, as: UTF8.self))
        }
        return Result(status: result.status, stdout: String(decoding: result.stdout, as: UTF8.self), stderr: String(decoding: result.stderr, as: UTF8.self))
    }
}

/// Copies a committed store (SampleData or a fixture) into `directory` and returns its path.
func copyStore(_ source: URL, into directory: TemporaryDirectory, as name: String = "store") throws -> String {
    let target = directory.url.appendingPathComponent(name)
    try FileManager.default.copyItem(at: source, to: target)
    return target.path
}

/// Every file under `root` with its bytes, for "nothing was changed" assertions.
func snapshotFiles(_ root: String) throws -> [String: Data] {
    var result: [String: Data] = [:]
    let base = URL(fileURLWithPath: root)
    guard let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey]) else { return result }
    for case let url as URL in enumerator where (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
        let relative = String(url.path.dropFirst(base.path.count + 1))
        result[relative] = try Data(contentsOf: url)
    }
    return result
}
