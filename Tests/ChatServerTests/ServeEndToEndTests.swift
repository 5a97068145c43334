import ChatDomain
import ChatStore
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatServer

/// `chatdir serve` as a user runs it: the real binary, its ready line, signals, kill -9.
@Suite(.ownThreads) struct ServeEndToEndTests {
    /// Copies SampleData/server into a temp directory: the committed sample is never written.
    static func sampleCopy() throws -> (TemporaryDirectory, String) {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/server"
        try FileManager.default.copyItem(
            atPath: packageRoot.appendingPathComponent("SampleData/server").path, toPath: data)
        return (directory, data)
    }

    @Test(
        "serve prints its URL and a ready line, serves SampleData, and exits 0 on the signal",
        arguments: [SIGTERM, SIGINT])
    func readyAndSignal(signal: Int32) throws {
        let (directory, data) = try Self.sampleCopy()
        defer { _ = directory }
        let server = try ServeProcess(["serve", "--data", data, "--port", "0"])
        #expect(server.readyLine.hasPrefix("ready: 5 users, 2 conversations"))
        let client = try TestHTTPClient(port: server.port)
        let list = try client.request("GET", "/v1/conversations")
        #expect(list.json["items"].array.map { $0["id"].string } == ["alice-bob", "dinner"])
        #expect(list.json["items"].array.map { $0["lastSequence"].int } == [3, 4])
        let notMember = try client.request(
            "GET", "/v1/conversations/alice-bob/messages", token: TestData.token("carol"))
        #expect(notMember.status == 403)
        let history = try client.request(
            "GET", "/v1/conversations/dinner/messages?limit=2", token: TestData.token("erin"))
        #expect(history.json["items"].array.compactMap { $0["sequence"].int } == [3, 4])

        let result = try server.stop(signal: signal)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains(signal == SIGTERM ? "SIGTERM" : "SIGINT"))
    }

    @Test("serve raises its soft limit on open files to the hard limit, so connections are not capped at 256")
    func raisesFileLimit() throws {
        let (directory, data) = try Self.sampleCopy()
        defer { _ = directory }
        let server = try ServeProcess(["serve", "--data", data, "--port", "0"], softFileLimit: 256)
        let limits = try String(contentsOfFile: "/proc/\(server.process.processIdentifier)/limits", encoding: .utf8)
        let line = try #require(limits.split(separator: "\n").first { $0.hasPrefix("Max open files") })
        let numbers = line.split(separator: " ").dropFirst(3).prefix(2).map(String.init)
        #expect(numbers.count == 2 && numbers[0] == numbers[1], "\(line)")
        #expect(numbers.first != "256", "\(line)")
        #expect(try server.stop(signal: SIGTERM).status == 0)
    }

    @Test("kill -9 loses nothing acknowledged: every 201 is there after a restart, and sequences stay dense")
    func killNine() throws {
        let (directory, data) = try Self.sampleCopy()
        defer { _ = directory }
        let server = try ServeProcess(["serve", "--data", data, "--port", "0"])
        let port = server.port
        let acknowledged = Locked<[(id: String, sequence: Int)]>([])
        let stop = Locked(false)
        let group = DispatchGroup()
        for worker in 0..<4 {
            group.enter()
            Thread {
                defer { group.leave() }
                guard let client = try? TestHTTPClient(port: port) else { return }
                var index = 0
                while !stop.withLock({ $0 }) {
                    let id = UUID().uuidString
                    guard let response = try? client.post("dinner", id: id, text: "\(worker)-\(index)", as: "bob"),
                        response.status == 201,
                        let sequence = response.json["sequence"].int
                    else { return }
                    acknowledged.withLock { $0.append((id, sequence)) }
                    index += 1
                }
            }.start()
        }
        try waitUntil("40 messages are acknowledged") { acknowledged.withLock { $0.count } >= 40 }
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        stop.withLock { $0 = true }
        group.wait()
        #expect(server.process.terminationReason == .uncaughtSignal)

        let restarted = try ServeProcess(["serve", "--data", data, "--port", "0"])
        let page = try TestHTTPClient(port: restarted.port).request(
            "GET", "/v1/conversations/dinner/messages?after=0&limit=500", token: TestData.token("bob"))
        let stored = Dictionary(
            uniqueKeysWithValues: page.json["items"].array.compactMap { item -> (String, Int)? in
                guard let id = item["clientMessageId"].string, let sequence = item["sequence"].int else { return nil }
                return (id, sequence)
            })
        let acked = acknowledged.withLock { $0 }
        #expect(acked.allSatisfy { stored[$0.id] == $0.sequence })
        #expect(stored.values.sorted() == Array(1...stored.count))
        #expect(try restarted.stop(signal: SIGTERM).status == 0)
    }

    @Test(
        "chatdir sync against chatdir serve with drop-reply and 5xx faults: every message arrives once, in order, for every member"
    )
    func syncClientAgainstFaults() throws {
        let (directory, data) = try Self.sampleCopy()
        defer { _ = directory }
        let server = try ServeProcess([
            "serve", "--data", data, "--port", "0", "--faults", "drop-reply=0.5,error5xx=0.2,seed=7",
        ])
        let url = "http://127.0.0.1:\(server.port)"
        let alice = directory.path + "/alice"
        let bob = directory.path + "/bob"
        #expect(try ChatdirProcess.run(["init", "--store", alice, "--user", "alice", "--server", url]).status == 0)
        #expect(try ChatdirProcess.run(["init", "--store", bob, "--user", "bob", "--server", url]).status == 0)
        /// Runs `chatdir sync` until it reports everything done (exit 0); the faults are seeded, so
        /// the number of tries is the same on every run.
        func syncUntilDone(_ store: String, token: String) throws {
            for _ in 0..<30 {
                if try ChatdirProcess.run(["sync", "--store", store], environment: ["CHATDIR_TOKEN": token]).status == 0
                {
                    return
                }
            }
            Issue.record("chatdir sync --store \(store) did not finish in 30 tries")
        }
        try syncUntilDone(alice, token: "alice-token")
        for index in 1...5 {
            #expect(try ChatdirProcess.run(["send", "--store", alice, "dinner", "hello \(index)"]).status == 0)
        }
        try syncUntilDone(alice, token: "alice-token")
        try syncUntilDone(bob, token: "bob-token")

        let rows = try ChatdirProcess.run(["view", "--store", bob, "dinner", "--json", "--limit", "50"]).stdout
            .split(separator: "\n").map { try JSONParser.parse(String($0)) }
        #expect(
            rows.compactMap { $0["text"].string }.filter { $0.hasPrefix("hello") } == [
                "hello 1", "hello 2", "hello 3", "hello 4", "hello 5",
            ])
        #expect(rows.compactMap { $0["sequence"].int } == Array(1...9))
        #expect(try server.stop(signal: SIGTERM).status == 0)
    }

    // serve's usage errors are in the in-process table (Tests/ChatCLITests/ArgumentsTests.swift).
    @Test(
        "serve refuses a missing data directory with 66",
        arguments: [
            (["serve", "--data", "/nonexistent/chatdir-data", "--port", "0"], Int32(66), "not a directory")
        ])
    func badArguments(arguments: [String], status: Int32, message: String) throws {
        let result = try ChatdirProcess.run(arguments)
        #expect(result.status == status)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test("serve --help documents the data directory, the faults and a curl example")
    func help() throws {
        let result = try ChatdirProcess.run(["serve", "--help"])
        #expect(result.status == 0)
        for text in ["--data DIR", "--faults LIST", "drop-reply=P", "rate-limit=P:S", "live-reorder=P", "curl"] {
            #expect(result.stdout.contains(text), "\(text)")
        }
    }
}

/// The `chatdir` binary running `serve` in the background, stopped by a signal.
final class ServeProcess: @unchecked Sendable {
    let process: TestProcess
    private let stdout = Pipe()
    private let stderr = Pipe()
    private let output = Locked<(out: String, err: String)>(("", ""))
    /// Pipes that reached their end (the handler sees empty data then).
    private let ended = Locked(0)
    private(set) var port = 0
    private(set) var readyLine = ""

    /// Starts `chatdir arguments…` and waits for its ready line; with `softFileLimit`, through
    /// `sh -c 'ulimit -Sn N; exec chatdir …'` (same process ID, lower soft RLIMIT_NOFILE).
    init(_ arguments: [String], softFileLimit: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let launcher =
            softFileLimit.map { limit in ["/bin/sh", "-c", "ulimit -Sn \(limit) && exec \"$0\" \"$@\""] } ?? []
        process = try ChatdirProcess.start(arguments, launcher: launcher, standardOutput: stdout, standardError: stderr)
        // Each pipe is read on a thread of its own, not through `readabilityHandler` (a dispatch
        // source): under a parallel `swift test` its end-of-file came more than 10 s after the
        // exit now and then.
        for (pipe, isError) in [(stdout, false), (stderr, true)] {
            let handle = pipe.fileHandleForReading
            Thread { [output, ended] in
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    let text = String(decoding: data, as: UTF8.self)
                    output.withLock { if isError { $0.err += text } else { $0.out += text } }
                }
                ended.withLock { $0 += 1 }
            }.start()
        }
        try waitUntil("chatdir serve prints its ready line", sourceLocation: sourceLocation) {
            let out = output.withLock { $0.out }
            guard !process.isRunning || out.contains("\nready") else { return false }
            return true
        }
        let lines = output.withLock { $0.out }.split(separator: "\n").map(String.init)
        guard process.isRunning, lines.count >= 2, let url = URLComponents(string: lines[0]), let port = url.port else {
            Issue.record("chatdir serve did not start: \(output.withLock { $0 })", sourceLocation: sourceLocation)
            throw ConnectionClosed()
        }
        self.port = port
        readyLine = lines[1]
    }

    /// Sends `signal` and waits for the exit.
    func stop(signal: Int32) throws -> (status: Int32, stdout: String, stderr: String) {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        // The last lines may still be in the pipes: wait for both to reach their end.
        do {
            try waitUntil("chatdir serve's output is read to its end", timeout: .seconds(30)) {
                ended.withLock { $0 } == 2
            }
        } catch {
            // Name whoever still holds a write end, so a failure explains itself.
            let holders = [stdout, stderr].flatMap { pipeHolders(of: $0.fileHandleForReading.fileDescriptor) }
            Issue.record("chatdir serve exited but its pipes did not reach their end; holders: \(holders)")
        }
        let text = output.withLock { $0 }
        return (process.terminationStatus, text.out, text.err)
    }

    deinit {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// A value behind a lock that closures can capture (a `Mutex` cannot be captured: it is not copyable).
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Lock<Value>

    init(_ value: Value) {
        mutex = Lock(value)
    }

    func withLock<T: Sendable>(_ body: (inout Value) -> T) -> T {
        mutex.withLock { body(&$0) }
    }
}
