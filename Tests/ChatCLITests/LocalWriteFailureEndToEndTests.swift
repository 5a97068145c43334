import ChatTestSupport
import Foundation
import Testing

/// `chatdir history` and `chatdir sync` when the store cannot be written (strace injects ENOSPC
/// or EIO into one fsync): exit 74 like every other command's failed write, words naming the
/// call, the file and the remedy, never "the server broke the wire contract" (76) or "try again
/// later" (75); the next run without the fault works.
@Suite(
    .ownThreads,
    .enabled(
        if: StraceLog.works,
        "strace cannot trace here (not installed, or ptrace is not allowed); install it with `apt-get install strace`"))
struct LocalWriteFailureEndToEndTests {
    /// A new store of alice's for `server`, not synced yet.
    static func newStore(_ directory: TemporaryDirectory, _ server: TestServer, _ name: String) throws -> String {
        let path = directory.file(name)
        #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", server.url, path]).status == 0)
        return path
    }

    static let token = ["CHATDIR_TOKEN": "alice-token"]

    /// `chatdir arguments…` under strace with `options`, and the raw trace (failed calls included).
    static func traced(_ arguments: [String], options: [String], in directory: TemporaryDirectory) throws -> (
        result: ChatdirProcess.Result, trace: String
    ) {
        let output = directory.file("trace-\(UUID().uuidString)")
        let result = try ChatdirProcess.run(
            ["-o", output] + options + StraceLog.sanitizerOptions + [ChatdirProcess.executable.path] + arguments,
            environment: token, executable: URL(fileURLWithPath: StraceLog.executable ?? "strace"))
        return (result, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
    }

    /// Runs `arguments` (with `--store STORE` added) once to number its fsyncs on the store, then
    /// for each number N on a fresh store with every fsync from the Nth on failing with `errno`
    /// (a disk that stays full). strace counts each thread's calls apart, so a run whose threads
    /// never reach N fails nothing: it must then succeed, and `check` sees only runs that failed.
    static func eachFsyncFailing(
        _ arguments: [String], errnos: [String], in directory: TemporaryDirectory, server: TestServer,
        _ check: (_ failed: ChatdirProcess.Result, _ store: String, _ errno: String, _ context: String) throws -> Void
    ) throws {
        let counting = try newStore(directory, server, "counting")
        let counted = try FsyncOrderEndToEndTests.traced(
            arguments + ["--store", counting], in: directory, environment: token)
        #expect(counted.result.status == 0, "\(counted.result.stderr)")
        // A grouped sync pass makes its writes durable with syncfs (GroupCommit): fail those too.
        let fsyncs = counted.log.calls.filter { $0.name == "fsync" || $0.name == "syncfs" }
        #expect(
            fsyncs.contains { $0.paths.allSatisfy { $0.hasPrefix(counting + "/") } },
            "\(arguments) made no fsync on the store")
        var injected = 0
        for number in 1...max(fsyncs.count, 1) {
            for errno in errnos {
                let context = "\(arguments.joined(separator: " ")) with fsync #\(number) on failing with \(errno)"
                let store = try newStore(directory, server, "faulted-\(number)-\(errno)")
                let options = [
                    "-f", "-qq", "-e", "trace=fsync,syncfs", "-e", "inject=fsync,syncfs:error=\(errno):when=\(number)+",
                ]
                let (failed, trace) = try traced(arguments + ["--store", store], options: options, in: directory)
                if trace.contains("(INJECTED)") {
                    injected += 1
                    try check(failed, store, errno, context)
                } else {
                    #expect(
                        failed.status == 0,
                        "\(context): nothing was injected, yet exit \(failed.status): \(failed.stderr)")
                }
                let next = try ChatdirProcess.run(arguments + ["--store", store], environment: token)
                #expect(next.status == 0, "\(context): the next run failed: \(next.stderr)")
            }
        }
        #expect(injected >= errnos.count, "only \(injected) runs met an injected fault")
    }

    static func expectWriteFailure(
        _ failed: ChatdirProcess.Result, command: String, store: String, errno: String, _ context: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(
            failed.status == 74, "\(context): exit \(failed.status), \(failed.stderr)", sourceLocation: sourceLocation)
        let words = errno == "ENOSPC" ? "No space left on device" : "Input/output error"
        let remedy =
            errno == "ENOSPC" ? "the disk is full: free some space, then run the command again" : "check the disk"
        #expect(
            failed.stderr.contains("chatdir \(command): ")
                && (failed.stderr.contains("fsync \(store)/") || failed.stderr.contains("syncfs \(store)/"))
                && failed.stderr.contains(words),
            "\(context): \(failed.stderr)", sourceLocation: sourceLocation)
        #expect(failed.stderr.contains(remedy), "\(context): \(failed.stderr)", sourceLocation: sourceLocation)
        #expect(
            !failed.stderr.contains("wire contract"), "\(context): \(failed.stderr)", sourceLocation: sourceLocation)
    }

    @Test(
        "history with an fsync failing (ENOSPC, EIO): exit 74 naming the call, the file and the remedy, not a broken contract"
    )
    func history() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        try Self.eachFsyncFailing(["history", "dinner"], errnos: ["ENOSPC", "EIO"], in: directory, server: server) {
            failed, store, errno, context in
            Self.expectWriteFailure(failed, command: "history", store: store, errno: errno, context)
            #expect(failed.stdout.isEmpty, "\(context): printed \(failed.stdout)")
        }
    }

    @Test("a sync pass with an fsync failing (ENOSPC): exit 74 naming the call, the file and the remedy, not 75")
    func syncPass() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        try Self.eachFsyncFailing(["sync"], errnos: ["ENOSPC"], in: directory, server: server) {
            failed, store, errno, context in
            Self.expectWriteFailure(failed, command: "sync", store: store, errno: errno, context)
        }
    }
}
