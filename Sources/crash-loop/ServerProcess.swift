import ChatProcess
import Foundation

/// `chatdir serve` as a separate process on a free port: the reference server, faults and all,
/// exactly as a user would run it.
final class ServerProcess {
    let process: TestProcess
    /// `http://127.0.0.1:PORT`, the first line the server prints.
    let url: String

    init(_ runner: ChatdirRunner, data: String, faults: String?) throws {
        let pipe = Pipe()
        process = try runner.start(
            ["serve", "--data", data, "--port", "0"] + (faults.map { ["--faults", $0] } ?? []), stdout: pipe)
        var bytes = Data()
        while !bytes.contains(UInt8(ascii: "\n")) {
            let chunk = pipe.fileHandleForReading.availableData
            guard !chunk.isEmpty else { break } // end of file: the server exited
            bytes += chunk
        }
        let line = String(decoding: bytes.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        guard line.hasPrefix("http://") else {
            process.terminate()
            throw RunnerError("chatdir serve did not print its URL (got \"\(line)\"); see the log")
        }
        url = line
        // Keep draining its stdout in the background so it never blocks on a full pipe.
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { while !handle.availableData.isEmpty {} }
    }

    var isRunning: Bool { process.isRunning }

    /// SIGKILL, then waits: what a crash or the OOM killer does to a server.
    func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// SIGTERM, then waits: the server finishes its current write and exits.
    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
