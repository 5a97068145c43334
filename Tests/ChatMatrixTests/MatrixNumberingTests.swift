import ChatDomain
import Testing

@testable import ChatMatrix

/// The numbering rule of Matrix rooms, one rule a test: what is counted, which way, where it
/// stops, and what is refused.
@Suite struct MatrixNumberingTests {
    static let base = MatrixNumbering.anchorSequence

    /// An event of `type` with ID `$id`.
    static func event(_ id: String, _ type: String = "m.room.message", _ content: MatrixEventContent? = nil) throws
        -> MatrixEvent
    {
        MatrixEvent(
            type: type, eventID: try MatrixEventID("$" + id), sender: try MatrixUserID("@bob:localhost"),
            originServerTimestamp: 1, content: content ?? .message(MatrixMessageContent(body: id)))
    }

    static func id(_ id: String) throws -> MatrixEventID { try MatrixEventID("$" + id) }

    /// The sequence and event ID of each numbered event, as `"sequence $id"`.
    static func numbers(_ events: [MatrixNumberedEvent]) -> [String] {
        events.map { "\($0.sequence) \($0.event.eventID)" }
    }

    @Test("the anchor's sequence leaves 999,999,999 older messages and stays below what a store holds")
    func anchorSequence() {
        #expect(Self.base - 1 == 999_999_999)
        #expect(MatrixNumbering.sequences == 1...Message.maxSequence)
        #expect(MatrixNumbering.sequences.contains(Self.base))
    }

    static let counted: [(String, MatrixEventContent, Bool)] = {
        let edit = MatrixMessageContent(
            body: "* fixed", relation: MatrixRelation(type: MatrixRelation.replace, eventID: try? MatrixEventID("$a")),
            newContent: MatrixNewContent(body: "fixed"))
        return [
            ("m.room.message", .message(MatrixMessageContent(body: "hi")), true),
            ("m.room.message", .message(edit), true),
            ("m.room.message", .redacted, true),
            ("m.room.message", .unreadable(reason: "content.body: not a string (found an integer)"), true),
            ("m.room.redaction", .redaction(redacts: try? MatrixEventID("$a")), false),
            ("m.room.member", .member(membership: "join", displayName: "bob"), false),
            ("m.room.name", .name("Dinner"), false),
            ("m.reaction", .other, false),
            ("m.room.encrypted", .other, false),
        ]
    }()

    @Test("only m.room.message counts, whatever its content", arguments: counted)
    func counts(type: String, content: MatrixEventContent, counts: Bool) throws {
        #expect(MatrixNumbering.counts(try Self.event("e", type, content)) == counts)
    }

    @Test("events after a known message count up from it, skipping what is not a message")
    func forward() throws {
        var numbering = MatrixNumbering()
        let page = [
            try Self.event("a"), try Self.event("j", "m.room.member", .member(membership: "join", displayName: nil)),
            try Self.event("b", "m.room.message", .redacted),
            try Self.event("r", "m.room.redaction", .redaction(redacts: nil)),
            try Self.event("c"),
        ]
        let numbered = try numbering.number(page, after: Self.base, try Self.id("anchor"))
        #expect(Self.numbers(numbered) == ["1000000001 $a", "1000000002 $b", "1000000003 $c"])
        #expect(numbering.eventIDs.count == 4)
        #expect(numbering.sequence(of: try Self.id("anchor")) == Self.base)
        #expect(numbering.sequence(of: try Self.id("j")) == nil)
    }

    @Test("events before a known message, newest first, count down from it")
    func backward() throws {
        var numbering = MatrixNumbering()
        let page = [try Self.event("y"), try Self.event("n", "m.room.name", .name("x")), try Self.event("x")]
        let numbered = try numbering.number(page, before: Self.base, try Self.id("anchor"))
        #expect(Self.numbers(numbered) == ["999999999 $y", "999999998 $x"])
    }

    @Test("the same page numbered twice gives the same sequences; so does a redacted copy of it")
    func sameAgain() throws {
        var numbering = MatrixNumbering()
        let first = try numbering.number([try Self.event("a"), try Self.event("b")], after: 7, try Self.id("s"))
        let redacted = [try Self.event("a", "m.room.message", .redacted), try Self.event("b")]
        let again = try numbering.number(redacted, after: 7, try Self.id("s"))
        #expect(Self.numbers(again) == Self.numbers(first))
        #expect(Self.numbers(again) == ["8 $a", "9 $b"])
    }

    static let differing: [(String, MatrixNumberingError)] = [
        // $b is 9; this page would make it 8.
        ("moved", .eventMoved(try! MatrixEventID("$b"), numbered: 9, found: 8)),
        // 8 is $a; this page puts $z there.
        ("taken", .sequenceTaken(8, numbered: try! MatrixEventID("$a"), found: try! MatrixEventID("$z"))),
        // The page's own start is numbered otherwise.
        ("start", .eventMoved(try! MatrixEventID("$s"), numbered: 7, found: 100)),
        // One event twice in a page.
        ("twice", .eventMoved(try! MatrixEventID("$q"), numbered: 10, found: 11)),
    ]

    @Test("a page that disagrees with what is numbered is refused whole: history differs", arguments: differing)
    func historyDiffers(name: String, expected: MatrixNumberingError) throws {
        var numbering = MatrixNumbering()
        _ = try numbering.number([try Self.event("a"), try Self.event("b")], after: 7, try Self.id("s"))
        let before = numbering
        #expect(throws: expected) {
            switch name {
            case "moved": _ = try numbering.number([try Self.event("b")], after: 7, try Self.id("s"))
            case "taken": _ = try numbering.number([try Self.event("z")], after: 7, try Self.id("s"))
            case "start": _ = try numbering.number([try Self.event("n")], after: 100, try Self.id("s"))
            default: _ = try numbering.number([try Self.event("q"), try Self.event("q")], after: 9, try Self.id("b"))
            }
        }
        #expect(numbering == before)
        #expect(expected.description.hasPrefix("history differs: "))
    }

    @Test("an anchor that disagrees with what is numbered is refused, never adopted")
    func otherAnchor() throws {
        var numbering = MatrixNumbering()
        try numbering.record(Self.base, try Self.id("first"))
        _ = try numbering.number([try Self.event("later")], after: Self.base, try Self.id("first"))
        let taken = MatrixNumberingError.sequenceTaken(
            Self.base, numbered: try Self.id("first"), found: try Self.id("other"))
        #expect(throws: taken) { try numbering.record(Self.base, try Self.id("other")) }
        #expect(
            throws: MatrixNumberingError.eventMoved(try Self.id("later"), numbered: Self.base + 1, found: Self.base)
        ) {
            try numbering.record(Self.base, try Self.id("later"))
        }
        try numbering.record(Self.base + 1, try Self.id("later"))
        #expect(numbering.eventIDs.count == 2)
    }

    @Test("counting down stops at sequence 1: an older message is out of reach, the page refused")
    func neverBelowOne() throws {
        var numbering = MatrixNumbering()
        let two = [try Self.event("b"), try Self.event("a")]
        #expect(throws: MatrixNumberingError.outOfReach(try Self.id("a"), older: true)) {
            _ = try numbering.number(two, before: 2, try Self.id("c"))
        }
        #expect(numbering.eventIDs.isEmpty)
        let one = try numbering.number([try Self.event("b")], before: 2, try Self.id("c"))
        #expect(Self.numbers(one) == ["1 $b"])
        #expect(throws: MatrixNumberingError.outOfReach(try Self.id("a"), older: true)) {
            _ = try numbering.number([try Self.event("a")], before: 1, try Self.id("b"))
        }
        // What is not a message takes no sequence, so it is never out of reach.
        #expect(
            try numbering.number([try Self.event("n", "m.room.name", .name("x"))], before: 1, try Self.id("b")).isEmpty)
    }

    @Test("counting up stops at the store's last sequence")
    func neverAboveTheStore() throws {
        var numbering = MatrixNumbering()
        #expect(throws: MatrixNumberingError.outOfReach(try Self.id("z"), older: false)) {
            _ = try numbering.number([try Self.event("z")], after: Message.maxSequence, try Self.id("y"))
        }
    }

    static let descriptions: [(MatrixNumberingError, String)] = [
        (
            .eventMoved(try! MatrixEventID("$b"), numbered: 9, found: 8),
            "history differs: event $b is sequence 9, but the server's history puts it at 8"
        ),
        (
            .sequenceTaken(8, numbered: try! MatrixEventID("$a"), found: try! MatrixEventID("$z")),
            "history differs: sequence 8 is event $a, but the server's history puts $z there"
        ),
        (
            .outOfReach(try! MatrixEventID("$a"), older: true),
            "older history is out of reach: message $a would come before sequence 1 (the room's anchor is sequence 1000000000, and messages before it count down)"
        ),
        (
            .outOfReach(try! MatrixEventID("$z"), older: false),
            "newer history is out of reach: message $z would come after sequence 9999900000"
        ),
    ]

    @Test("each refusal says what differs or what is out of reach", arguments: descriptions)
    func description(error: MatrixNumberingError, text: String) {
        #expect(error.description == text)
    }
}
