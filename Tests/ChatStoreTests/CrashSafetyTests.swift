import ChatDomain
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// A real writer process (store-torture) killed with SIGKILL at random moments: every visible
/// file must always parse, and every write it acknowledged must still be there.
@Suite(.ownThreads) struct CrashSafetyTests {
    static var tortureBinary: URL { builtProduct("store-torture") }

    @Test("SIGKILL at 60 random moments loses nothing acknowledged and leaves every file parseable")
    func killedWriter() throws {
        let directory = try TemporaryDirectory()
        let root = directory.path + "/store"
        var acknowledgedSequences = Set<Int>()
        var acknowledgedOutbox = Set<String>()
        var acknowledgedDelivered = 0
        var acknowledgedRead = 0
        var random = SplitMix64(seed: UInt64(Date().timeIntervalSince1970))
        var kills = 0

        for round in 0..<60 {
            let process = TestProcess()
            process.executableURL = Self.tortureBinary
            process.arguments = [root]
            let stdout = Pipe()
            let stderr = Pipe()
            process.standardOutput = stdout
            process.standardError = stderr
            let lines = PipeLines(stdout)
            try process.run()
            // Every fourth round is killed during start-up (opening the store, repairing `.newest`);
            // the others only once the writer has saved a message this round, so each of them makes
            // progress however slowly a loaded machine starts the process. The random moment after
            // that lands in the middle of a rewrite most of the time.
            let startUpRound = round % 4 == 0
            let before = acknowledgedSequences.count
            if !startUpRound {
                let saved = lines.wait(timeout: .seconds(60)) { $0.hasPrefix("seq ") }
                #expect(saved, "round \(round): the writer saved nothing within 60 s")
            }
            usleep(UInt32(5_000 + random.next() % 60_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let output = lines.waitForEnd()
            let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(errors.isEmpty, "round \(round): the writer failed: \(errors)")
            if process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL { kills += 1 }
            // Only complete lines are acknowledgements; a line cut by the kill is not.
            for line in output {
                let parts = line.split(separator: " ")
                guard parts.count == 2 else { continue }
                switch parts[0] {
                case "seq": acknowledgedSequences.insert(Int(parts[1]) ?? -1)
                case "delivered": acknowledgedDelivered = max(acknowledgedDelivered, Int(parts[1]) ?? -1)
                case "outbox": acknowledgedOutbox.insert(String(parts[1]))
                case "read": acknowledgedRead = max(acknowledgedRead, Int(parts[1]) ?? -1)
                default: Issue.record("unexpected line \(line)")
                }
            }
            if !startUpRound {
                #expect(
                    acknowledgedSequences.count > before, "round \(round): the writer made no progress before the kill")
            }
            try verify(
                root: root, round: round, sequences: acknowledgedSequences, outbox: acknowledgedOutbox,
                delivered: acknowledgedDelivered, read: acknowledgedRead)
        }
        #expect(kills == 60, "every round must end in SIGKILL")
        #expect(
            acknowledgedSequences.count >= 45,
            "the writer should have made progress in each of the 45 rounds not killed at start-up")
    }

    private func verify(root: String, round: Int, sequences: Set<Int>, outbox: Set<String>, delivered: Int, read: Int)
        throws
    {
        guard Sys.kind(of: root + "/chatdir.json") != nil else {
            #expect(sequences.isEmpty, "round \(round): acknowledged writes but no store")
            return
        }
        let report = StoreChecker.check(root: root)
        #expect(report.errors.isEmpty, "round \(round): \(report.errors)")
        // Only what a kill can leave: temp files of the killed writer (hidden from readers) and a
        // `.newest` hint one segment behind (readers check it; the writer repairs it on start).
        #expect(
            report.warnings.allSatisfy {
                $0.message.hasPrefix("a temporary file") || $0.message.hasPrefix("missing")
                    || $0.path.hasSuffix("/.newest")
            }, "round \(round): \(report.warnings)")
        let store = try Store.open(at: root)
        let conversation = store.conversation(c1)
        var stored = Set<Int>()
        for range in try conversation.segmentRanges() {
            stored.formUnion(try conversation.readSegment(range).map(\.sequence))
        }
        #expect(sequences.isSubset(of: stored), "round \(round): lost \(sequences.subtracting(stored).sorted())")
        let queued = Set(try conversation.outbox().map(\.clientMessageID.rawValue))
        #expect(outbox.isSubset(of: queued), "round \(round): lost outbox \(outbox.subtracting(queued))")
        #expect((try conversation.positions()?[bob].deliveredUpTo ?? 0) >= delivered)
        #expect((try conversation.wantedReadPosition() ?? 0) >= read)
        // Sequences stay contiguous: nothing doubled, no holes from a half-written rewrite.
        if let high = stored.max() { #expect(stored == Set(1...high), "round \(round): holes in \(stored.sorted())") }
    }
}
