import Foundation
import Testing

/// Runs the built `chatdir` binary as a child process, the way a user or a script would.
struct ChatdirProcess {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }
    }

    /// The `chatdir` executable next to the test bundle (SwiftPM builds it first: the test target depends on it).
    static let executable: URL = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("chatdir")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        let fallback = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../.build/debug/chatdir").standardized
        return fallback
    }()

    /// Runs `chatdir arguments…` to completion with `input` on stdin; TZ=UTC and no colour for
    /// stable output; `environment` adds to or overrides the inherited environment.
    @discardableResult
    static func run(_ arguments: [String], input: String? = nil, environment: [String: String] = [:]) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["TZ"] = "UTC"
        env["NO_COLOR"] = "1"
        env.removeValue(forKey: "CHATDIR_STORE")
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let stdout = Pipe()
        let stderr = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        // Read both pipes to the end before waiting, so a chatty child never blocks on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errorData = Data()
        group.enter()
        DispatchQueue.global().async {
            errorData = stderr.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outputData = stdout.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self), stderr: String(decoding: errorData, as: UTF8.self))
    }
}

/// A fresh directory under the system temp directory, removed when the test ends.
final class TemporaryDirectory {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("chatdir-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func file(_ relative: String) -> String { path + "/" + relative }
}

/// The project's root, found from this source file.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

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
