import ChatServer
import ChatTestSupport
import Foundation
import Testing

/// `chatdir cancel` as a user runs it, against a reference server in this process; the race
/// with a delivery in flight goes through a relay that stalls the POST.
@Suite(.ownThreads) struct CancelEndToEndTests {
    @Test("a pending message is cancelled and never reaches the server")
    func pending() throws {
        let fixture = try ServedStore()
        let id = try fixture.send("never mind")
        let cancelled = try fixture.cancel(["dinner", id])
        #expect(cancelled.status == 0, "\(cancelled.stderr)")
        #expect(cancelled.stdout == "cancelled \(id)\n")
        #expect(fixture.outbox.isEmpty)
        #expect(try fixture.sync().status == 0)
        #expect(try fixture.onServer(id) == 0)
        #expect(!(try ChatdirProcess.run(["view", "--store", fixture.store, "dinner"])).stdout.contains("never mind"))
    }

    @Test("a failed message is cancelled; --all-failed shows each failed message, then clears them")
    func failed() throws {
        let fixture = try ServedStore()
        let first = try fixture.send("REJECT one")
        let second = try fixture.send("REJECT two")
        let kept = try fixture.send("REJECT three")
        #expect(try fixture.sync().status == 65)
        let one = try fixture.cancel(["dinner", kept])
        #expect(one.status == 0 && one.stdout == "cancelled \(kept)\n", "\(one.stderr)")
        let all = try fixture.cancel(["--all-failed"])
        #expect(all.status == 0, "\(all.stderr)")
        #expect(all.lines.count == 4, "\(all.stdout)")
        #expect(
            all.lines[0].hasPrefix("failed: dinner \(first) \"REJECT one\" (rejected by the server"), "\(all.stdout)")
        #expect(all.lines[1] == "cancelled \(first)")
        #expect(all.lines[2].hasPrefix("failed: dinner \(second) \"REJECT two\""))
        #expect(all.lines[3] == "cancelled \(second)")
        #expect(fixture.outbox.isEmpty)
        let again = try fixture.cancel(["--all-failed"])
        #expect(again.status == 0 && again.stdout.isEmpty)
        #expect(again.stderr == "chatdir cancel: no failed messages to cancel; nothing to do\n")
    }

    @Test("an unknown ID: exit 66 naming it; a malformed one: usage error 64")
    func unknown() throws {
        let fixture = try ServedStore()
        let id = "6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3"
        let result = try fixture.cancel(["dinner", id])
        #expect(result.status == 66)
        #expect(
            result.stderr
                == "chatdir cancel: no outbox message \(id) in conversation dinner; `chatdir view dinner` shows pending and failed messages with their IDs\n"
        )
        #expect(try fixture.cancel(["dinner", "not-an-id"]).status == 64)
        #expect(try fixture.cancel(["nowhere", id]).status == 66)
    }

    @Test("a message already sent: said so, exit 65, and it stays")
    func alreadySent() throws {
        let fixture = try ServedStore()
        let id = try fixture.send("on my way")
        #expect(try fixture.sync().status == 0)
        let result = try fixture.cancel(["dinner", id])
        #expect(result.status == 65)
        #expect(result.stderr.contains("\(id) was already sent: the server accepted it (sequence "), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(try fixture.onServer(id) == 1)
    }

    /// Starts `chatdir sync` (one pass) and waits until the relay holds its POST.
    func startSyncStalled(_ fixture: ServedStore, _ relay: StallingRelay) throws -> TestProcess {
        let sync = try ChatdirProcess.start(
            ["sync", "--store", fixture.store], environment: fixture.environment, standardInput: nil)
        #expect(relay.waitForStall(), "the POST never came")
        return sync
    }

    /// Runs `chatdir cancel dinner id` while the POST is stalled: waits for it to say it waits,
    /// then releases the POST. Returns cancel's status and output.
    func cancelDuringStall(_ fixture: ServedStore, _ relay: StallingRelay, _ id: String) throws -> (
        status: Int32, stdout: String, stderr: String
    ) {
        let out = Pipe()
        let err = Pipe()
        let waiting = DispatchSemaphore(value: 0)
        let stderrEnded = DispatchSemaphore(value: 0)
        let stderr = Locked("")
        readLines(
            of: err.fileHandleForReading,
            { line in
                stderr.withLock { $0 += line + "\n" }
                if line.contains("waiting for the attempt to end") { waiting.signal() }
            }, ended: { stderrEnded.signal() })
        let cancel = try ChatdirProcess.start(
            ["cancel", "--store", fixture.store, "dinner", id], standardInput: nil, standardOutput: out,
            standardError: err)
        #expect(
            waiting.wait(timeout: .now() + 60) == .success,
            "cancel did not wait for the attempt: \(stderr.withLock { $0 })")
        relay.release()
        let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        cancel.waitUntilExit()
        // Every line of stderr, the last one ("already sent" or "cancelled") included: the
        // reading thread may still hold it when the process has exited.
        #expect(stderrEnded.wait(timeout: .now() + 60) == .success, "cancel's stderr never ended")
        return (cancel.terminationStatus, stdout, stderr.withLock { $0 })
    }

    /// A store synced through a relay, one message queued, `sync` started and its POST stalled
    /// as `stall` says, and `cancel` run during the stall; returns what cancel and sync did.
    func race(_ stall: StallingRelay.Stall) throws -> (
        fixture: ServedStore, id: String, cancel: (status: Int32, stdout: String, stderr: String), sync: Int32
    ) {
        let fixture = try ServedStore(relayed: true)
        let stalling = try #require(fixture.relay)
        let id = try fixture.send("racing")
        stalling.arm(stall)
        let sync = try startSyncStalled(fixture, stalling)
        let cancel = try cancelDuringStall(fixture, stalling, id)
        sync.waitUntilExit()
        return (fixture, id, cancel, sync.terminationStatus)
    }

    @Test("cancel during a POST the server accepts: waits, then says already sent; the server holds it once")
    func raceAccepted() throws {
        let (fixture, id, cancel, sync) = try race(.reply)
        #expect(cancel.status == 65, "\(cancel.stderr)")
        #expect(cancel.stderr.contains("\(id) was already sent"), "\(cancel.stderr)")
        #expect(cancel.stdout.isEmpty)
        #expect(sync == 0)
        #expect(try fixture.onServer(id) == 1)
        #expect(fixture.outbox.isEmpty)
        #expect(try fixture.sync().status == 0)
        #expect(try fixture.onServer(id) == 1)
    }

    @Test("cancel during a POST that never reaches the server: waits, then cancels; the server never has it")
    func raceNotAccepted() throws {
        let (fixture, id, cancel, _) = try race(.request)
        fixture.relay?.passPosts()
        #expect(cancel.status == 0, "\(cancel.stderr)")
        #expect(cancel.stdout == "cancelled \(id)\n")
        #expect(fixture.outbox.isEmpty)
        #expect(try fixture.onServer(id) == 0)
        #expect(try fixture.sync().status == 0)
        #expect(try fixture.onServer(id) == 0)
    }
}

/// A value shared with a reader thread.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<T>(_ body: (inout Value) -> T) -> T { lock.withLock { body(&value) } }
}
