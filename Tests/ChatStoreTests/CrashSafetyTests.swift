import ChatDomain
import Foundation
import Testing
@testable import ChatStore
import ChatTestSupport

/// A real writer process (store-torture) killed with SIGKILL at random moments: every visible
/// file must always parse, and every write it acknowledged must still be there.
@Suite struct CrashSafetyTests {
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
        // The kill window covers the writer's start-up and as long again of writing. Start-up
        // took 70-85 ms in a normal debug build on a busy 2-core machine, but 200-400 ms under
        // AddressSanitizer or ThreadSanitizer, where a fixed 5-65 ms window killed every writer
        // before its first write.
        let startUp = try Self.timeToFirstAcknowledgement(scratch: directory.path + "/calibration")

        for round in 0..<60 {
            let process = Process()
            process.executableURL = Self.tortureBinary
            process.arguments = [root]
            let stdout = Pipe()
            let stderr = Pipe()
            process.standardOutput = stdout
            process.standardError = stderr
            try process.run()
            // A random moment: the writer is in the middle of a rewrite most of the time.
            usleep(UInt32(5_000 + random.next() % UInt64(60_000 + 2 * startUp)))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let output = String(decoding: stdout.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let errors = String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(errors.isEmpty, "round \(round): the writer failed: \(errors)")
            if process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL { kills += 1 }
            // Only complete lines are acknowledgements; a line cut by the kill is not.
            for line in output.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
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
            try verify(root: root, round: round, sequences: acknowledgedSequences, outbox: acknowledgedOutbox,
                       delivered: acknowledgedDelivered, read: acknowledgedRead)
        }
        #expect(kills == 60, "every round must end in SIGKILL")
        #expect(acknowledgedSequences.count > 60, "the writer should have made progress across rounds")
    }

    /// Microseconds from launching a writer until its first acknowledged write.
    private static func timeToFirstAcknowledgement(scratch: String) throws -> Int {
        let process = Process()
        process.executableURL = tortureBinary
        process.arguments = [scratch]
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        let started = ContinuousClock.now
        try process.run()
        defer {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        _ = stdout.fileHandleForReading.availableData  // blocks until the first line (or EOF)
        let elapsed = ContinuousClock.now - started
        return Int(elapsed.components.seconds) * 1_000_000 + Int(elapsed.components.attoseconds / 1_000_000_000_000)
    }

    private func verify(root: String, round: Int, sequences: Set<Int>, outbox: Set<String>, delivered: Int, read: Int) throws {
        guard Sys.kind(of: root + "/chatdir.json") != nil else {
            #expect(sequences.isEmpty, "round \(round): acknowledged writes but no store")
            return
        }
        let report = StoreChecker.check(root: root)
        #expect(report.errors.isEmpty, "round \(round): \(report.errors)")
        // Only what a kill can leave: temp files of the killed writer (hidden from readers) and a
        // `.newest` hint one segment behind (readers check it; the writer repairs it on start).
        #expect(report.warnings.allSatisfy {
            $0.message.hasPrefix("a temporary file") || $0.message.hasPrefix("missing") || $0.path.hasSuffix("/.newest")
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
