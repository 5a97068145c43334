import ChatTestSupport
import Foundation
import Testing

/// The crash loop over the whole path (Sources/crash-loop): `chatdir serve` with every fault on,
/// alice's store driven through send, read, retry and sync, the sync SIGKILLed at random moments
/// while bob posts. scripts/soak-crash.sh runs the same loop with 1,000 kills.
@Suite(.ownThreads) struct CrashLoopTests {
    struct Run {
        var status: Int32
        var summary: String
        var stderr: String
    }

    /// Runs the driver to its end; its findings (with the seed) are on stderr when it fails.
    func crashLoop(_ arguments: [String]) throws -> Run {
        let process = TestProcess()
        process.executableURL = builtProduct("crash-loop")
        process.arguments = arguments + ["--chatdir", builtProduct("chatdir").path, "--quiet"]
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let errorRead = BackgroundRead(stderr.fileHandleForReading)
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errorData = errorRead.wait()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, summary: String(decoding: output, as: UTF8.self),
            stderr: String(decoding: errorData, as: UTF8.self))
    }

    @Test(
        "25 SIGKILLs of sync and sync --live (and of send, read, retry and the server) under every fault: nothing lost, doubled or unparseable, the server holds each message once"
    )
    func shortLoop() throws {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        let run = try crashLoop(["--kills", "25", "--seed", String(seed)])
        #expect(run.status == 0, "seed \(seed): \(run.summary)\(run.stderr)")
        #expect(run.summary.contains("kills=25 "), "\(run.summary)")
        #expect(
            run.summary.contains("lost=0 doubled=0 unparseable=0 server-duplicates=0 read-backwards=0"),
            "\(run.summary)")
    }
}
