import ChatServer
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

/// The exit codes README's table promises, one row per case, each run through the built binary,
/// and each code's words found in README's list (so the table and the binary cannot drift apart).
@Suite(.ownThreads) struct ExitCodeTableEndToEndTests {
    /// One row of README's exit-code list: the case a user meets, the code, README's words for it.
    struct Row: Sendable, CustomTestStringConvertible {
        var situation: String
        var code: Int32
        var readme: String
        var testDescription: String { "\(situation) → \(code)" }
    }

    static let rows: [Row] = [
        Row(situation: "sync on a store created without --server", code: 78, readme: "78 not configured: no server"),
        Row(
            situation: "sync with --token-file naming a file that is not there", code: 78,
            readme: "78 not configured: no server, no usable token (a missing or empty token file"),
        Row(situation: "search that finds nothing", code: 1, readme: "1 nothing found (`search`)"),
        Row(situation: "a mistyped command", code: 64, readme: "64 usage: an unknown command or option"),
        Row(situation: "init on an existing store", code: 73, readme: "73 cannot create: `init`"),
        Row(situation: "sync with another user's token", code: 77, readme: "77 permission or token refused"),
        Row(situation: "sync --live with another user's token", code: 77, readme: "77 permission or token refused"),
        Row(
            situation: "sync --live when the server answers the upgrade with 403", code: 77,
            readme: "77 permission or token refused"),
        Row(
            situation: "sync against an HTTP server that is not chatdir (404 on the API)", code: 76,
            readme: "76 the server broke the contract"),
        Row(
            situation: "serve on a port that is in use", code: 69, readme: "69 unavailable (`serve`: the port is in use"
        ),
    ]

    @Test("each exit code README lists is what the binary returns", arguments: rows)
    func row(_ row: Row) throws {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let listed = readme.contains(row.readme)
        #expect(listed, "README's exit codes do not say \"\(row.readme)\"")
        let result = try Self.run(row.situation)
        #expect(result.status == row.code, "\(row.situation): \(result.stderr)")
    }

    /// Sets up `situation` in fresh temp directories and runs the command, stopping it after a
    /// generous deadline (a live worker that should have stopped and did not fails the row).
    static func run(_ situation: String) throws -> (status: Int32?, stdout: String, stderr: String) {
        let directory = try TemporaryDirectory()
        let server = try TestServer(sampleData: true)
        defer { server.stop() }
        let url = server.url
        let store = directory.file("alice")
        switch situation {
        case "sync on a store created without --server":
            #expect(try ChatdirProcess.run(["init", "--user", "alice", store]).status == 0)
            return try runWithDeadline(["sync", "--store", store], token: "alice-token")
        case "sync with --token-file naming a file that is not there":
            #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", url, store]).status == 0)
            let missing = directory.file("no-such.token")
            let result = try runWithDeadline(["sync", "--store", store, "--token-file", missing], token: "")
            #expect(
                result.stderr
                    == "chatdir sync: \(missing): no such token file; create it (mode 0600) with the token alone in it, or name the file that holds it\n"
            )
            return result
        case "search that finds nothing":
            #expect(try ChatdirProcess.run(["init", "--user", "alice", store]).status == 0)
            return try runWithDeadline(["search", "--store", store, "pizza"], token: "")
        case "a mistyped command":
            return try runWithDeadline(["snd", "--store", store, "dinner", "hi"], token: "")
        case "init on an existing store":
            #expect(try ChatdirProcess.run(["init", "--user", "alice", store]).status == 0)
            return try runWithDeadline(["init", "--user", "alice", store], token: "")
        case "sync with another user's token":
            #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", url, store]).status == 0)
            return try runWithDeadline(["sync", "--store", store], token: "bob-token")
        case "sync --live with another user's token":
            #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", url, store]).status == 0)
            return try runWithDeadline(["sync", "--live", "--store", store], token: "bob-token")
        case "sync --live when the server answers the upgrade with 403":
            let forbidding = try HeadRecorder(status: "403 Forbidden", body: #"{"error":"account suspended"}"#)
            defer { forbidding.stop() }
            #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", forbidding.url, store]).status == 0)
            return try runWithDeadline(["sync", "--live", "--store", store], token: "alice-token")
        case "sync against an HTTP server that is not chatdir (404 on the API)":
            let other = try HeadRecorder(
                status: "404 Not Found", headers: ["Content-Type: text/html"],
                body: "<html><body>Not Found</body></html>")
            defer { other.stop() }
            #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", other.url, store]).status == 0)
            return try runWithDeadline(["sync", "--store", store], token: "alice-token")
        case "serve on a port that is in use":
            let taken = try HeadRecorder()
            defer { taken.stop() }
            let other = try copyStore(
                packageRoot.appendingPathComponent("SampleData/server"), into: directory, as: "other-server")
            return try runWithDeadline(["serve", "--data", other, "--port", String(taken.port)], token: "")
        default:
            Issue.record("no setup for \(situation)")
            return (nil, "", "")
        }
    }

    /// Runs the built `chatdir`; a process still running after 60 s is killed and gives a nil status.
    static func runWithDeadline(_ arguments: [String], token: String) throws -> (
        status: Int32?, stdout: String, stderr: String
    ) {
        let out = Pipe()
        let err = Pipe()
        let process = try ChatdirProcess.start(
            arguments, environment: ["CHATDIR_TOKEN": token], standardOutput: out, standardError: err)
        // A watchdog, not a terminationHandler: under LeakSanitizer a Process given a
        // terminationHandler was reported leaked with everything it held (CI, ASan run).
        let killed = Lock(false)
        let pid = process.processIdentifier
        let watchdog = DispatchWorkItem {
            killed.withLock { $0 = true }
            kill(pid, SIGKILL)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 60, execute: watchdog)
        process.waitUntilExit()
        watchdog.cancel()
        let status: Int32? = killed.withLock { $0 } ? nil : process.terminationStatus
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        return (status, stdout, stderr)
    }
}
