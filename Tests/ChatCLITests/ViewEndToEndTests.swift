import ChatTestSupport
import Foundation
import Testing

@Suite(.ownThreads) struct ViewEndToEndTests {
    let sample = packageRoot.appendingPathComponent("SampleData/alice")

    @Test("view prints SampleData's group rows in sequence order with every tick state")
    func groupRows() throws {
        let result = try ChatdirProcess.run(["view", "--store", sample.path, "dinner", "--limit", "6"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.lines == [
                "2026-11-29 12:16  carol  Perfect, book it!",
                "2026-11-29 12:20  alice  Booked: Friday 20:00, under \"Alice\"  ✓✓ read",
                "2026-11-29 12:31  dave   Can we make it 8:30? Train gets in late",
                "2026-11-29 12:33  erin   8:30 is fine by me",
                "2026-11-29 12:40  alice  Moved it to 20:30, see you all there  ✓✓ delivered",
                "2026-11-29 12:41  alice  Bring cash, they don't take cards  ✓ sent",
            ])
    }

    @Test("pending and failed messages follow the sequenced ones, oldest first; no positions means unknown")
    func outboxRows() throws {
        let result = try ChatdirProcess.run(["view", "--store", sample.path, "carol"])
        #expect(result.status == 0)
        let lines = result.lines
        #expect(lines.count == 6)
        #expect(lines[1].hasSuffix("Maybe, what time?  ✓ receipts unknown"))
        #expect(lines[3].hasSuffix("See you at 7 then  ◷ pending"))
        #expect(lines[4].contains("✗ failed: rejected by the server"))
        #expect(lines[4].contains("(retry: chatdir retry --store \(sample.path) carol "))
        #expect(lines[5].hasSuffix("Bringing the spare harness  ◷ pending"))
    }

    @Test("--json prints one object per row that jq can read")
    func jsonRows() throws {
        let result = try ChatdirProcess.run(["view", "--store", sample.path, "bob", "--json", "--limit", "2"])
        #expect(result.status == 0)
        let rows = try result.lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(rows.count == 2)
        #expect(rows[0]?["sequence"] as? Int == 7)
        #expect(rows[0]?["status"] as? String == "delivered")
        #expect(rows[1]?["text"] as? String == "Ordered you a flat white")
    }

    @Test("--before scrolls back through stored history")
    func scrollBack() throws {
        let result = try ChatdirProcess.run(["view", "--store", sample.path, "dinner", "--before", "3", "--json"])
        let sequences = try result.lines.map {
            (try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["sequence"] as? Int
        }
        #expect(sequences == [1, 2])
    }
}

/// `view --limit N` shows N rows in all, outbox rows counted among them.
@Suite(.ownThreads) struct ViewLimitEndToEndTests {
    let sample = packageRoot.appendingPathComponent("SampleData/alice")

    @Test(
        "--limit N counts pending and failed rows among the N: the newest N rows, as text and as JSON",
        arguments: [1, 3, 4, 6])
    func limitCountsOutbox(_ limit: Int) throws {
        let all = try ChatdirProcess.run(["view", "--store", sample.path, "carol"])
        #expect(all.lines.count == 6, "SampleData's carol has 3 messages and 3 outbox rows: \(all.stdout)")
        let limited = try ChatdirProcess.run(["view", "--store", sample.path, "carol", "--limit", String(limit)])
        #expect(limited.status == 0, "\(limited.stderr)")
        #expect(limited.lines == Array(all.lines.suffix(limit)))
        let json = try ChatdirProcess.run(["view", "--store", sample.path, "carol", "--json", "--limit", String(limit)])
        #expect(json.lines.count == limit)
    }
}
