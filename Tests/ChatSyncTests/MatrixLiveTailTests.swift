import ChatMatrix
import Testing

@testable import ChatSync

/// When the events a live `/sync` shows can be numbered without asking `/messages`: only a
/// single line of events going on from where a forward walk ended; anything else (a fork, a
/// gap, a timeline cut short, events without their place in the graph) leaves it to `/messages`.
@Suite struct MatrixLiveTailTests {
    /// An `m.room.message` (or `type`) in the federation format: depth and `prev_events`.
    func event(_ id: String, depth: Int?, after previous: [String], type: String = "m.room.message") throws
        -> MatrixEvent
    {
        let place =
            depth.map { #","depth":\#($0),"prev_events":[\#(previous.map { "\"\($0)\"" }.joined(separator: ","))]"# }
            ?? ""
        return try MatrixDecoder.event(
            Array(
                #"{"type":"\#(type)","event_id":"\#(id)","sender":"@bob:example.org","origin_server_ts":1,"content":{"msgtype":"m.text","body":"\#(id)"}\#(place)}"#
                    .utf8))
    }

    /// A tail following on from a walk that ended at `$walked` (depth 10), numbered 1,000,000,000.
    func following() throws -> (MatrixLiveTail, MatrixNumbering, MatrixLiveTail.Mark) {
        var tail = MatrixLiveTail.start
        tail.receive(MatrixTimeline(events: [try event("$walked", depth: 10, after: ["$before"])])) { _ in false }
        let mark = MatrixLiveTail.Mark(sequence: 1_000_000_000, eventID: try MatrixEventID("$walked"))
        tail.walked(to: try MatrixEventID("$walked"), mark: mark)
        var numbering = MatrixNumbering()
        try numbering.record(mark.sequence, mark.eventID)
        return (tail, numbering, mark)
    }

    @Test("a line of events from the walk's end is numbered on from its mark, and the next wake goes on from there")
    func lineIsTaken() throws {
        var (tail, numbering, mark) = try following()
        tail.receive(
            MatrixTimeline(events: [
                try event("$a", depth: 11, after: ["$walked"]),
                try event("$r", depth: 12, after: ["$a"], type: "m.room.redaction"),
                try event("$b", depth: 13, after: ["$r"]),
            ])
        ) { _ in false }
        let taken = try #require(try tail.take(after: mark, limit: 100, numbering: &numbering))
        #expect(taken.numbered.map(\.sequence) == [1_000_000_001, 1_000_000_002])
        #expect(taken.numbered.map(\.event.eventID.rawValue) == ["$a", "$b"])
        #expect(taken.events.map(\.eventID.rawValue) == ["$a", "$r", "$b"])
        #expect(try tail.take(after: mark, limit: 100, numbering: &numbering) == nil, "taken twice")

        let next = MatrixLiveTail.Mark(sequence: 1_000_000_002, eventID: try MatrixEventID("$b"))
        tail.receive(MatrixTimeline(events: [try event("$c", depth: 14, after: ["$b"])])) { _ in false }
        let again = try #require(try tail.take(after: next, limit: 100, numbering: &numbering))
        #expect(again.numbered.map(\.sequence) == [1_000_000_003])
    }

    @Test(
        "a fork, a skipped depth, a second parent, an event sent after one not shown, a limited timeline: /messages is asked",
        arguments: [
            ["$a:11:$walked", "$b:11:$walked"], // two members at once: a fork
            ["$a:12:$walked"], // a depth that skips a level
            ["$a:11:$walked,$other"], // a merge of two branches
            ["$a:11:$state"], // after an event this filter does not show
            ["$a:11:$walked", "$b:12:$elsewhere"],
        ])
    func notALine(_ spec: [String]) throws {
        var (tail, numbering, mark) = try following()
        let events = try spec.map { item in
            let parts = item.split(separator: ":")
            return try event(
                String(parts[0]), depth: Int(parts[1]), after: parts[2].split(separator: ",").map(String.init))
        }
        tail.receive(MatrixTimeline(events: events)) { _ in false }
        #expect(try tail.take(after: mark, limit: 100, numbering: &numbering) == nil)
        #expect(tail == .apart(newest: MatrixLiveTail.Link(eventID: events.last!.eventID, depth: events.last!.depth!)))
    }

    @Test(
        "a limited timeline, events without depth, a walk that ended elsewhere or short of the end: /messages is asked")
    func otherWaysApart() throws {
        var (tail, numbering, mark) = try following()
        tail.receive(MatrixTimeline(events: [try event("$a", depth: 11, after: ["$walked"])], limited: true)) { _ in
            false
        }
        #expect(try tail.take(after: mark, limit: 100, numbering: &numbering) == nil)

        (tail, numbering, mark) = try following()
        tail.receive(MatrixTimeline(events: [try event("$a", depth: nil, after: [])])) { _ in false }
        #expect(tail == .apart(newest: nil))
        tail.walked(to: try MatrixEventID("$a"), mark: mark)
        #expect(tail == .apart(newest: nil), "no depth: never followed")

        var other = MatrixLiveTail.start
        other.receive(MatrixTimeline(events: [try event("$n", depth: 20, after: ["$m"])])) { _ in false }
        other.walked(to: try MatrixEventID("$m"), mark: mark)
        #expect(other == .apart(newest: MatrixLiveTail.Link(eventID: try MatrixEventID("$n"), depth: 20)))

        (tail, numbering, mark) = try following()
        tail.receive(MatrixTimeline(events: [try event("$a", depth: 11, after: ["$walked"])])) { _ in false }
        tail.walkedPart()
        #expect(try tail.take(after: mark, limit: 100, numbering: &numbering) == nil, "pending dropped")
    }

    @Test("a line longer than one page that no catch-up takes is let go: /messages brings it")
    func pendingIsBounded() throws {
        var (tail, numbering, mark) = try following()
        var previous = "$walked"
        for batch in 0..<11 {
            let events = try (0..<100).map { index in
                let id = "$e\(batch)-\(index)"
                defer { previous = id }
                return try event(id, depth: 11 + batch * 100 + index, after: [previous])
            }
            tail.receive(MatrixTimeline(events: events)) { _ in false }
            if batch == 9 { #expect(tail.newest?.depth == 1010 && tail != .apart(newest: tail.newest)) }
        }
        #expect(tail == .apart(newest: MatrixLiveTail.Link(eventID: try MatrixEventID(previous), depth: 1110)))
        #expect(try tail.take(after: mark, limit: 2_000, numbering: &numbering) == nil)
    }

    @Test("taken only after the mark it follows, and only when the page's limit holds it")
    func takeChecksMarkAndLimit() throws {
        var (tail, numbering, mark) = try following()
        tail.receive(
            MatrixTimeline(events: [
                try event("$a", depth: 11, after: ["$walked"]), try event("$b", depth: 12, after: ["$a"]),
            ])
        ) { _ in false }
        let elsewhere = MatrixLiveTail.Mark(sequence: 999_999_999, eventID: try MatrixEventID("$older"))
        #expect(try tail.take(after: elsewhere, limit: 100, numbering: &numbering) == nil)
        #expect(try tail.take(after: mark, limit: 1, numbering: &numbering) == nil)
        #expect(try tail.take(after: mark, limit: 2, numbering: &numbering)?.numbered.count == 2)
    }

    @Test("events the numbering places elsewhere are refused, and the tail leaves it to /messages")
    func numberingDisagrees() throws {
        var (tail, numbering, mark) = try following()
        try numbering.record(1_000_000_001, try MatrixEventID("$elsewhere"))
        tail.receive(MatrixTimeline(events: [try event("$a", depth: 11, after: ["$walked"])])) { _ in false }
        #expect(throws: MatrixNumberingError.self) { try tail.take(after: mark, limit: 100, numbering: &numbering) }
        #expect(tail == .apart(newest: MatrixLiveTail.Link(eventID: try MatrixEventID("$a"), depth: 11)))
        #expect(numbering.sequence(of: try MatrixEventID("$a")) == nil, "nothing of the refused events numbered")
    }

    @Test("the walk's end shown again, or an event already numbered, is passed over")
    func knownEventsPassedOver() throws {
        var (tail, numbering, mark) = try following()
        tail.receive(
            MatrixTimeline(events: [
                try event("$walked", depth: 10, after: ["$before"]), try event("$a", depth: 11, after: ["$walked"]),
            ])
        ) { _ in false }
        #expect(try tail.take(after: mark, limit: 100, numbering: &numbering)?.numbered.count == 1)
    }
}
