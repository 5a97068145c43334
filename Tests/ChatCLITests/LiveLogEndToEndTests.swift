import ChatDomain
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatCLI

/// The live worker's log on stderr as journalctl or a log file gets it (stderr not a terminal).
@Suite(.ownThreads) struct LiveLogEndToEndTests {
    @Test("sync --live with stderr in a pipe starts every log line with an ISO 8601 UTC time stamp")
    func stampedInAPipe() throws {
        let server = try TestServer(sampleData: true)
        let directory = try TemporaryDirectory()
        let store = directory.file("alice")
        #expect(try ChatdirProcess.run(["init", "--user", "alice", "--server", server.url, store]).status == 0)
        let before = Date()
        let (worker, stderr) = try ChatdirProcess.startLiveWorker(store: store)
        // Read as it comes, and stop the worker only once it has said it is connected: the
        // server seeing the socket comes before the worker's line (a TSan run met the signal first).
        let received = Lock("")
        let ended = Lock(false)
        let handle = stderr.fileHandleForReading
        Thread.detachNewThread {
            while true {
                let data = handle.availableData
                if data.isEmpty { break }
                received.withLock { $0 += String(decoding: data, as: UTF8.self) }
            }
            ended.withLock { $0 = true }
        }
        #expect(waitUntil { received.withLock { $0 }.contains("chatdir sync: connected to \(server.url)") })
        worker.interrupt()
        worker.waitUntilExit()
        #expect(waitUntil { ended.withLock { $0 } })
        let log = received.withLock { $0 }
        #expect(worker.terminationStatus == 0)
        let lines = log.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("chatdir sync: connected to \(server.url)") }, "log: \(log)")
        let stamp = #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z chatdir sync: /#
        for line in lines {
            #expect(line.firstMatch(of: stamp) != nil, "no time stamp: \(line)")
            guard line.count > 24 else { continue }
            let text = String(line[line.startIndex..<line.index(line.startIndex, offsetBy: 24)])
            let parsed = try #require(
                ISO8601DateFormatter.withFractionalSeconds.date(from: text), "not ISO 8601: \(text)")
            // UTC and now: the stamp is the wall clock of the line, not local time.
            #expect(abs(parsed.timeIntervalSince(before)) < 120, "\(text) is not about now (\(before))")
        }
    }
}

extension ISO8601DateFormatter {
    static var withFractionalSeconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}

@Suite struct LogLineTests {
    @Test("a log line is stamped with the UTC time to the millisecond off a terminal, and left alone on one")
    func format() {
        // 2026-12-01T18:10:00.123Z
        let nanoseconds: UInt64 = 1_796_148_600_123_000_000
        #expect(
            LogLine.format("chatdir sync: caught up", stamped: true, nanoseconds: nanoseconds)
                == "2026-12-01T18:10:00.123Z chatdir sync: caught up")
        #expect(
            LogLine.format("chatdir sync: caught up", stamped: false, nanoseconds: nanoseconds)
                == "chatdir sync: caught up")
    }
}
