import ChatStore
import ChatTestSupport
import Foundation
import Testing

/// `chatdir status` as a health check: with no worker, with a live worker against a reference
/// server in this process, and after that server is gone.
@Suite(.ownThreads) struct StatusEndToEndTests {
    @Test("no worker: exit 0 with an empty outbox, 75 with a pending message, and the words say why")
    func noWorker() throws {
        let fixture = try ServedStore()
        let healthy = try fixture.run(["status"])
        #expect(healthy.status == 0, "\(healthy.stderr)")
        #expect(
            healthy.lines.first?.hasPrefix("sync worker: none running; the last one (pid ") == true, "\(healthy.stdout)"
        )
        #expect(healthy.stdout.contains("outbox: 0 pending, 0 failed"))
        #expect(healthy.stdout.contains("  dinner     caught up "), "\(healthy.stdout)")
        #expect(try fixture.run(["view", "dinner"]).status == 0)
        let opened = try fixture.status()
        let opens = opened.json["timeToOpenMs"] as? [String: Any]
        #expect(opens?["count"] as? Int == 1, "\(opened.json)")

        #expect(try fixture.run(["send", "dinner", "waiting"]).status == 0)
        let waiting = try fixture.run(["status"])
        #expect(waiting.status == 75)
        #expect(waiting.stdout.contains("outbox: 1 pending (oldest "))
        #expect(
            waiting.stderr.contains(
                "chatdir status: 1 message waits and no sync worker runs; start one: chatdir sync --store "),
            "\(waiting.stderr)")
        let json = try fixture.status()
        #expect(json.status == 75)
        #expect(json.json["healthy"] as? Bool == false)
        #expect((json.json["worker"] as? [String: Any])?["running"] as? Bool == false)
        #expect((json.json["outbox"] as? [String: Any])?["pending"] as? Int == 1)
    }

    @Test("a live worker: running, its pid, connected, deliveries measured; the server gone: reconnecting, exit 75")
    func liveWorker() throws {
        let fixture = try ServedStore()
        let (worker, _) = try ChatdirProcess.startLiveWorker(
            store: fixture.store, environment: ["XDG_RUNTIME_DIR": fixture.runtime])
        defer {
            if worker.isRunning { kill(worker.processIdentifier, SIGTERM) }
            worker.waitUntilExit()
        }
        let connected = try fixture.waitForStatus { _, json in
            (json["worker"] as? [String: Any])?["connection"] as? String == "connected"
        }
        let worker1 = connected.json["worker"] as? [String: Any]
        #expect(connected.status == 0, "\(connected.stderr)")
        #expect(worker1?["pid"] as? Int == Int(worker.processIdentifier), "\(connected.json)")
        #expect(worker1?["mode"] as? String == "live")
        #expect(worker1?["running"] as? Bool == true)

        #expect(try fixture.run(["send", "dinner", "measured"]).status == 0)
        let delivered = try fixture.waitForStatus { _, json in
            (json["sendToSentMs"] as? [String: Any])?["count"] as? Int == 1
        }
        #expect((delivered.json["sendToSentMs"] as? [String: Any])?["p50"] is Int, "\(delivered.json)")
        let text = try fixture.run(["status"])
        #expect(
            text.lines.first?.hasPrefix("sync worker: pid \(worker.processIdentifier) (sync --live) since ") == true,
            "\(text.stdout)")
        #expect(text.lines.first?.hasSuffix(", connected; 0 reconnects in the last hour") == true, "\(text.stdout)")
        #expect(text.stdout.contains("send-to-sent: p50 "))

        fixture.server.stop()
        let lost = try fixture.waitForStatus { status, _ in status == 75 }
        #expect(lost.status == 75)
        #expect((lost.json["worker"] as? [String: Any])?["connection"] as? String == "reconnecting", "\(lost.json)")
        #expect((lost.json["worker"] as? [String: Any])?["reconnectsLastHour"] as? Int == 1)
        #expect(
            lost.stderr.contains(
                "chatdir status: the sync worker (pid \(worker.processIdentifier)) cannot reach the server"),
            "\(lost.stderr)")

        kill(worker.processIdentifier, SIGTERM)
        worker.waitUntilExit()
        let stopped = try fixture.run(["status"])
        #expect(stopped.status == 0)
        #expect(
            stopped.lines.first?.contains("the last one (pid \(worker.processIdentifier)) stopped") == true,
            "\(stopped.stdout)")
    }

    @Test("a worker killed with SIGKILL: its figures are told apart as the last one's, never as running")
    func killedWorker() throws {
        let fixture = try ServedStore()
        let (worker, _) = try ChatdirProcess.startLiveWorker(
            store: fixture.store, environment: ["XDG_RUNTIME_DIR": fixture.runtime])
        let connected = try fixture.waitForStatus { _, json in
            (json["worker"] as? [String: Any])?["connection"] as? String == "connected"
        }
        #expect((connected.json["worker"] as? [String: Any])?["running"] as? Bool == true)
        kill(worker.processIdentifier, SIGKILL)
        worker.waitUntilExit()
        #expect(try fixture.run(["send", "dinner", "after the kill"]).status == 0)
        let after = try fixture.run(["status"])
        #expect(after.status == 75)
        #expect(
            after.lines.first?.contains(
                "the last one (pid \(worker.processIdentifier)) ended without stopping (killed?); last heard of ")
                == true, "\(after.stdout)")
        let json = try fixture.status().json["worker"] as? [String: Any]
        #expect(json?["running"] as? Bool == false)
        #expect(json?["lastPid"] as? Int == Int(worker.processIdentifier))
    }

    /// `caughtUpAt` of each conversation in `status --json`.
    static func caughtUp(_ json: [String: Any]) -> [String: String] {
        var times: [String: String] = [:]
        for row in json["conversations"] as? [[String: Any]] ?? [] {
            if let id = row["id"] as? String, let time = row["caughtUpAt"] as? String { times[id] = time }
        }
        return times
    }

    @Test("a pass refused its token or not reaching the server keeps when each conversation last caught up")
    func failedPassKeepsHistory() throws {
        let fixture = try ServedStore()
        let before = Self.caughtUp(try fixture.status().json)
        #expect(before.keys.sorted() == ["alice-bob", "dinner"], "\(before)")
        var refused = fixture.environment
        refused["CHATDIR_TOKEN"] = "not-alice-token"
        #expect(try ChatdirProcess.run(["sync", "--store", fixture.store], environment: refused).status == 77)
        #expect(Self.caughtUp(try fixture.status().json) == before)
        #expect(try fixture.run(["sync", "--server", "http://127.0.0.1:9"]).status == 75)
        #expect(Self.caughtUp(try fixture.status().json) == before)
        let text = try fixture.run(["status"])
        #expect(text.stdout.contains("  dinner     caught up "), "\(text.stdout)")
        #expect(!text.stdout.contains("no catch-up recorded"), "\(text.stdout)")
    }

    @Test("time to open below a millisecond reads as such, never 0 ms")
    func subMillisecondOpen() throws {
        let fixture = try ServedStore()
        let opens = OpenTimes(RuntimeChannel(storeRoot: fixture.store, runtimeDirectory: fixture.runtime))
        #expect(opens.record(milliseconds: 0.3) == nil)
        let text = try fixture.run(["status"])
        #expect(text.stdout.contains("time to open: p50 0.3 ms (last 1 open)\n"), "\(text.stdout)")
        #expect(((try fixture.status().json["timeToOpenMs"] as? [String: Any])?["p50"] as? Double) == 0.3)
        // A real open, however fast, is recorded to the microsecond and never shown as 0 ms.
        #expect(try fixture.run(["view", "dinner"]).status == 0)
        #expect(opens.recent().count == 2)
        #expect(!(try fixture.run(["status"])).stdout.contains(" 0 ms"))
    }

    @Test("a damaged status file is reported and status goes on")
    func damagedFile() throws {
        let fixture = try ServedStore()
        try Data(#"{"pid":"x\u001b[2J"}"#.utf8).write(to: URL(fileURLWithPath: fixture.store + "/.sync-status"))
        let result = try fixture.run(["status"])
        #expect(result.status == 0)
        #expect(
            result.stdout.contains(
                "figures: .sync-status: \"pid\" is a string, expected a process ID; the next sync worker rewrites it"),
            "\(result.stdout)")
        #expect(!result.stdout.contains("\u{1b}"))
    }
}
