import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// `StoreMerge` on a Matrix store's segments: a redaction wins over the original, and anything
/// else differing stays a conflict.
@Suite struct StoreMergeMatrixTests {
    let path = "conversations/room/messages/0000000001-0000000010.json"

    static func record(_ sequence: Int, event: String, text: String = "hello", mine: Bool = false) throws -> Message {
        let eventID = try EventID(event)
        var random = SplitMix64(seed: UInt64(sequence))
        return Message(
            sequence: sequence, clientMessageID: mine ? .random(using: &random) : .derived(fromEventID: eventID),
            senderID: try UserID(mine ? "@alice:example.org" : "@bob:example.org"), text: text,
            sentAt: "2026-11-29T10:00:0\(sequence).000Z", eventID: eventID)
    }

    static func redacted(_ message: Message) throws -> Message {
        var redacted = message
        let eventID = try #require(message.eventID)
        redacted.clientMessageID = .derived(fromEventID: eventID)
        redacted.text = ""
        redacted.kind = nil
        redacted.replaces = nil
        redacted.redacted = true
        return redacted
    }

    @Test(
        "the same event at one sequence, redacted on one side only, merges to the redacted record either way round",
        arguments: [false, true])
    func redactionWins(mine: Bool) throws {
        let original = try Self.record(2, event: "$e2", text: "secret", mine: mine)
        let gone = try Self.redacted(original)
        let first = try Self.record(1, event: "$e1")
        let third = try Self.record(3, event: "$e3")
        let ours = SegmentFile.encode([first, original, third])
        let theirs = SegmentFile.encode([first, gone])
        let expected = SegmentFile.encode([first, gone, third])
        for (a, b) in [(ours, theirs), (theirs, ours)] {
            let outcome = try StoreMerge.merge(base: SegmentFile.encode([first]), ours: a, theirs: b, path: path)
            #expect(outcome.isClean, "\(outcome.conflicts)")
            #expect(String(decoding: outcome.bytes, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        }
    }

    @Test("two different texts for one event, or two redacted records that differ, stay a conflict")
    func otherDifferencesConflict() throws {
        let original = try Self.record(2, event: "$e2", text: "one")
        var edited = original
        edited.text = "two"
        let outcome = try StoreMerge.merge(
            base: [], ours: SegmentFile.encode([original]), theirs: SegmentFile.encode([edited]), path: path)
        #expect(!outcome.isClean)
        #expect(String(decoding: outcome.bytes, as: UTF8.self).contains("<<<<<<< ours"))

        var other = try Self.redacted(original)
        other.sentAt = "2026-11-29T11:00:00.000Z"
        let both = try StoreMerge.merge(
            base: [], ours: SegmentFile.encode([try Self.redacted(original)]), theirs: SegmentFile.encode([other]),
            path: path)
        #expect(!both.isClean)
    }

    @Test("one event at two sequences is a conflict, never a clean merge the store would refuse")
    func eventAtTwoSequences() throws {
        let ours = try Self.record(2, event: "$e2")
        var theirs = ours
        theirs.sequence = 3
        let outcome = try StoreMerge.merge(
            base: [], ours: SegmentFile.encode([ours]), theirs: SegmentFile.encode([theirs]), path: path)
        #expect(
            outcome.conflicts.contains("event ID $e2 is at sequence 2 and 3 on the two sides"), "\(outcome.conflicts)")
        let kept = try StoreMerge.resolve(outcome.bytes, keeping: .theirs, path: path)
        #expect(
            String(decoding: kept.bytes, as: UTF8.self) == String(decoding: SegmentFile.encode([theirs]), as: UTF8.self)
        )
    }

    @Test("a Matrix side merged with a wire v1 side is refused as damaged, naming the key")
    func mixedProtocols() throws {
        let matrix = SegmentFile.encode([try Self.record(1, event: "$e1")])
        let wire = SegmentFile.encode([message(2)])
        #expect {
            try StoreMerge.merge(base: [], ours: matrix, theirs: wire, path: path)
        } throws: { error in
            "\(error)".contains("theirs is damaged: line 2: the field \"eventId\" is missing")
        }
    }
}
