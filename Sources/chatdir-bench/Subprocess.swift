import ChatProcess
import ChatSystem
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Child processes the bench starts: the `chatdir` binary (timed, with its peak memory),
/// `git`, `grep` and the peer runner.
enum Subprocess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// What a timed child did.
    struct Timed {
        var status: Int32
        /// From just before posix_spawn to wait4's return: the process's whole life.
        var wallSeconds: Double
        /// wait4's ru_maxrss of the child, in kilobytes: NOT the child's own peak (see ``peakRSS(_:python:)``).
        var maxRSSKilobytes: Int
    }

    /// Starts `arguments` (searched in PATH) with stdout and stderr sent to `output` (a file
    /// path, /dev/null by default), waits with wait4 and returns the wall time and peak RSS.
    static func timed(_ arguments: [String], output: String = "/dev/null", environment: [String: String] = [:]) throws
        -> Timed
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value }
        var pid: pid_t = 0
        let start = Stats.now()
        let spawned = ChildProcess.withCStrings(arguments) { argv in
            ChildProcess.withCStrings(ChildProcess.environmentStrings(merged)) { envp in
                posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
            }
        }
        guard spawned == 0 else {
            throw Failure(description: "cannot start \(arguments[0]): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else {
                throw Failure(description: "wait4 for \(arguments[0]) failed: \(String(cString: strerror(errno)))")
            }
        }
        let wall = Double(Stats.now() - start) / 1e9
        // WIFEXITED / WEXITSTATUS, spelled out (the macros are not imported).
        let exitStatus: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return Timed(status: exitStatus, wallSeconds: wall, maxRSSKilobytes: Int(usage.ru_maxrss))
    }

    /// Runs `arguments` to the end and returns its stdout; throws with its stderr when it fails.
    @discardableResult
    static func capture(
        _ arguments: [String], in directory: String? = nil, allowFailure: Bool = false, passStderr: Bool = false
    ) throws -> (status: Int32, output: Data) {
        // posix_spawn through TestProcess, not Foundation's Process (whose run() can crash the
        // caller on this toolchain); `env -C` runs the child in `directory`.
        let process = TestProcess()
        process.deadline = nil // a peer's run takes as long as its workload
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = (directory.map { ["-C", $0] } ?? []) + arguments
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        // Progress of long children (the peer runner) goes straight to our stderr.
        process.standardError = passStderr ? FileHandle.standardError : stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes before waiting, so a chatty child never blocks on a full pipe.
        let errors = ErrorCollector(passStderr ? nil : stderr.fileHandleForReading)
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let status = process.terminationStatus
        if status != 0 && !allowFailure {
            throw Failure(
                description:
                    "\(arguments.joined(separator: " ")) exited with \(status): \(String(decoding: errors.finish(), as: UTF8.self).suffix(2000))"
            )
        }
        return (status, output)
    }

    /// Drains a pipe on a thread of its own.
    private final class ErrorCollector: @unchecked Sendable {
        private var data = Data()
        private let done = DispatchSemaphore(value: 0)

        init(_ handle: FileHandle?) {
            guard let handle else {
                done.signal()
                return
            }
            Thread.detachNewThread { [self] in
                data = handle.readDataToEndOfFile()
                done.signal()
            }
        }

        func finish() -> Data {
            done.wait()
            return data
        }
    }

    /// The peak resident set size of `arguments` run to the end, in kilobytes.
    ///
    /// Not from our own wait4: posix_spawn uses vfork, and Linux folds the high-water mark of
    /// the memory the child leaves at exec (ours, tens of MB) into the child's ru_maxrss, as it
    /// does for a forked copy. So a small process forks and execs the command and reports its
    /// ru_maxrss: GNU time (`/usr/bin/time -f %M`, about 1 MB itself) when installed, else a
    /// python3 helper (about 10 MB itself, so figures below that are only an upper bound).
    static func peakRSS(_ arguments: [String], python: String) throws -> (kilobytes: Int, tool: String) {
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("chatdir-bench-rss-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: report) }
        let tool: String
        let wrapped: [String]
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/time") {
            tool = "/usr/bin/time -f %M"
            wrapped = ["/usr/bin/time", "-f", "%M", "-o", report] + arguments
        } else {
            tool = "python3 fork/exec/wait4 (floor about 10 MB)"
            let helper =
                "import os,sys\npid=os.fork()\nif pid==0: os.execvp(sys.argv[2],sys.argv[2:])\n_,st,ru=os.wait4(pid,0)\nopen(sys.argv[1],'w').write(str(ru.ru_maxrss))\nsys.exit(os.waitstatus_to_exitcode(st))"
            wrapped = [python, "-c", helper, report] + arguments
        }
        let result = try timed(wrapped, environment: ["NO_COLOR": "1"])
        guard result.status == 0 else {
            throw Failure(description: "\(wrapped.joined(separator: " ")) exited with \(result.status)")
        }
        let text = (try? String(contentsOfFile: report, encoding: .utf8)) ?? ""
        guard
            let kilobytes = text.split(whereSeparator: \.isNewline).last.flatMap({
                Int($0.trimmingCharacters(in: .whitespaces))
            })
        else {
            throw Failure(description: "\(tool) reported \(text.debugDescription), not a size")
        }
        return (kilobytes, tool)
    }

    /// `rm -rf path`.
    /// Where ``removeTree(_:)`` moves what it removes while a run is under way (set by
    /// ``Bench/run()``, emptied at its end); nil: removed at once.
    static let trash = Lock<String?>(nil)

    /// Removes `path`: during a run, by renaming it into ``trash`` (one rename, no inode freed).
    /// On this VM's ext4 (no journal) a new file skips every inode freed in the last 30–60 s,
    /// so deleting a finished workload's thousands of files made the next workload's file
    /// creations 2–3× slower (BENCHMARKS.md, "Durable writes at the syscall floor").
    static func removeTree(_ path: String) {
        if let trash = trash.withLock({ $0 }), FileManager.default.fileExists(atPath: path) {
            let name = trash + "/\(Stats.now())-" + (path as NSString).lastPathComponent
            if (try? FileManager.default.moveItem(atPath: path, toPath: name)) != nil { return }
        }
        try? FileManager.default.removeItem(atPath: path)
    }
}
