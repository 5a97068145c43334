import ChatTestSupport
import Foundation
import Testing

@testable import ChatCLI

@Suite("The progress line of long work")
struct ProgressLineTests {
    @Test("count, total, rate and time left, with thousands grouped")
    func text() {
        let reading = ProgressLine.Reading(label: "seeding /tmp/big", done: 250_000, total: 1_000_000, unit: "messages")
        #expect(
            ProgressLine.text(reading, elapsed: .seconds(1))
                == "seeding /tmp/big: 250,000 of 1,000,000 messages, 250,000/s, about 3 s left")
        #expect(
            ProgressLine.text(reading, elapsed: .seconds(100))
                == "seeding /tmp/big: 250,000 of 1,000,000 messages, 2,500/s, about 5 min left")
        // At the very start there is no rate to speak of, and with no total no estimate.
        #expect(
            ProgressLine.text(reading, elapsed: .milliseconds(10)) == "seeding /tmp/big: 250,000 of 1,000,000 messages")
        let open = ProgressLine.Reading(label: "dinner: fetching older", done: 1500, total: nil, unit: "messages")
        #expect(ProgressLine.text(open, elapsed: .seconds(3)) == "dinner: fetching older: 1,500 messages, 500/s")
        // A total the work overtook (the server's head moved on) is not shown below the count.
        let overtaken = ProgressLine.Reading(label: "c1: catching up", done: 120, total: 100, unit: "messages")
        #expect(ProgressLine.text(overtaken, elapsed: .seconds(1)) == "c1: catching up: 120 of 120 messages, 120/s")
    }

    @Test(
        "numbers and durations as people read them",
        arguments: [
            (0, "0"), (7, "7"), (999, "999"), (1000, "1,000"), (1_234_567, "1,234,567"), (-45_000, "-45,000"),
        ])
    func grouped(_ row: (Int, String)) {
        #expect(ProgressLine.grouped(row.0) == row.1)
    }

    @Test("time left rounds up to a second, then minutes, then hours")
    func duration() {
        #expect(ProgressLine.duration(0.2) == "1 s")
        #expect(ProgressLine.duration(89) == "89 s")
        #expect(ProgressLine.duration(600) == "10 min")
        #expect(ProgressLine.duration(2 * 3600 + 5 * 60) == "2 h 5 min")
        #expect(ProgressLine.duration(.infinity) == "a long time")
    }

    @Test("a sync's report becomes a reading whose total is what is stored plus what is left")
    func syncReading() throws {
        let reading = ProgressLine.Reading(
            .init(conversation: try .init("dinner"), work: .catchUp, fetched: 5000, remaining: 95_000))
        #expect(reading == .init(label: "dinner: catching up", done: 5000, total: 100_000, unit: "messages"))
        let history = ProgressLine.Reading(
            .init(conversation: try .init("dinner"), work: .history, fetched: 500, remaining: nil))
        #expect(history == .init(label: "dinner: fetching older", done: 500, total: nil, unit: "messages"))
    }
}

/// Blocks on child processes (a seed of 40,000 takes seconds): off the cooperative pool.
@Suite("Progress on a terminal, nothing in a pipe", .ownThreads)
struct ProgressEndToEndTests {
    /// Runs `chatdir arguments…` under `script(1)`, so stdout and stderr are a terminal, and
    /// returns everything the terminal received.
    static func onTerminal(_ arguments: [String], in directory: TemporaryDirectory) throws -> (
        status: Int32, transcript: String
    ) {
        let command = ([ChatdirProcess.executable.path] + arguments).map {
            "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
        let transcript = directory.file("transcript")
        let result = try ChatdirProcess.run(
            ["-q", "-e", "-c", command, transcript], environment: ["TERM": "xterm", "COLUMNS": "120", "LINES": "40"],
            executable: URL(fileURLWithPath: "/usr/bin/script"))
        return (result.status, try String(contentsOfFile: transcript, encoding: .utf8))
    }

    @Test(
        "a big seed draws count and total on a terminal, clears the line, and prints its result; check of it counts what it read"
    )
    func seedOnTerminal() throws {
        let directory = try TemporaryDirectory()
        let fixture = directory.file("big")
        let (status, transcript) = try Self.onTerminal(
            ["seed", fixture, "--conversations", "1", "--messages", "40000"], in: directory)
        #expect(status == 0, "\(transcript)")
        #expect(transcript.contains("\r\u{1B}[Kseeding: "), "\(transcript.debugDescription)")
        #expect(transcript.contains(" of 40,000 messages"), "\(transcript.debugDescription)")
        // Every drawing after the first is a tenth of a second later, so it carries a rate.
        let drawings = transcript.components(separatedBy: "\r\u{1B}[Kseeding: ").dropFirst()
        for later in drawings.dropFirst() where later.contains("of 40,000") {
            #expect(later.contains("/s"), "\(later.debugDescription)")
        }
        // The line is cleared before the result, so the path starts at the left margin.
        #expect(transcript.contains("\r\u{1B}[K" + fixture), "\(transcript.debugDescription)")

        // `check` of the same store counts the messages it has read; --quiet and a pipe do not.
        let check = try Self.onTerminal(["check", fixture], in: directory)
        #expect(check.status == 0, "\(check.transcript)")
        #expect(check.transcript.contains("\r\u{1B}[Kchecking: "), "\(check.transcript.debugDescription)")
        #expect(check.transcript.contains("40000 messages, 0 outbox files"), "\(check.transcript.debugDescription)")
        let quiet = try Self.onTerminal(["check", fixture, "--quiet"], in: directory)
        #expect(quiet.status == 0)
        #expect(!quiet.transcript.contains("checking"), "\(quiet.transcript.debugDescription)")
        let piped = try ChatdirProcess.run(["check", fixture])
        #expect(!piped.stderr.contains("checking"), "\(piped.stderr.debugDescription)")
    }

    @Test("--quiet on a terminal and a pipe for stderr both get no progress")
    func quietAndPipe() throws {
        let directory = try TemporaryDirectory()
        let quiet = try Self.onTerminal(
            ["seed", directory.file("quiet"), "--conversations", "1", "--messages", "40000", "--quiet"], in: directory)
        #expect(quiet.status == 0)
        #expect(!quiet.transcript.contains("seeding"), "\(quiet.transcript.debugDescription)")
        let piped = try ChatdirProcess.run([
            "seed", directory.file("piped"), "--conversations", "1", "--messages", "40000",
        ])
        #expect(piped.status == 0)
        #expect(piped.stderr.isEmpty, "\(piped.stderr.debugDescription)")
        #expect(piped.stdout == directory.file("piped") + "\n")
    }
}
