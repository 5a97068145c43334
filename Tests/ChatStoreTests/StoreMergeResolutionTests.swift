import ChatDomain
import ChatTestSupport
import Testing

@testable import ChatStore

/// `StoreMerge.resolve`: keeping one side of every hunk the driver wrote, as
/// `chatdir merge-file --keep` does, keeps every record only one side had.
@Suite struct StoreMergeResolutionTests {
    let segmentPath = "conversations/c1/messages/0000000001-0000000010.json"

    @Test(
        "keeping either side keeps the records only ours or only theirs had; only the other side's record at the conflict goes",
        arguments: StoreMerge.KeptSide.allCases)
    func keepsOneSidedRecords(side: StoreMerge.KeptSide) throws {
        let edited = message(2, text: "edited by hand")
        let ours = SegmentFile.encode([message(1), edited, message(3)])
        let theirs = SegmentFile.encode([message(1), message(2), message(4)])
        let outcome = try StoreMerge.merge(
            base: SegmentFile.encode([message(1), message(2)]), ours: ours, theirs: theirs, path: segmentPath)
        #expect(!outcome.isClean)
        let resolved = try StoreMerge.resolve(outcome.bytes, keeping: side, path: segmentPath)
        #expect(resolved.hunks == 1)
        #expect(
            resolved.bytes
                == SegmentFile.encode([message(1), side == .ours ? edited : message(2), message(3), message(4)]))
    }

    @Test(
        "a file without markers is left as it is; markers out of order or an unsound result are refused with the line")
    func refusals() throws {
        let clean = SegmentFile.encode([message(1)])
        #expect(
            try StoreMerge.resolve(clean, keeping: .ours, path: segmentPath)
                == StoreMerge.Resolution(bytes: clean, hunks: 0))
        let backwards = Array("[\n=======\n>>>>>>> theirs\n]\n".utf8)
        #expect(throws: StoreMerge.Failure.self) {
            try StoreMerge.resolve(backwards, keeping: .ours, path: segmentPath)
        }
        let unclosed = Array("[\n<<<<<<< ours\n=======\n]\n".utf8)
        #expect(throws: StoreMerge.Failure.self) {
            try StoreMerge.resolve(unclosed, keeping: .theirs, path: segmentPath)
        }
        // Hand-written markers around two records in the wrong order: keeping theirs would not be a sound segment.
        let record1 = String(decoding: SegmentFile.encode([message(1)]).dropFirst(2).dropLast(3), as: UTF8.self)
        let record2 = String(decoding: SegmentFile.encode([message(2)]).dropFirst(2).dropLast(3), as: UTF8.self)
        let unsound = Array("[\n\(record2),\n<<<<<<< ours\n\(record2)\n=======\n\(record1)\n>>>>>>> theirs\n]\n".utf8)
        do {
            _ = try StoreMerge.resolve(unsound, keeping: .theirs, path: segmentPath)
            Issue.record("an unsound resolution was accepted")
        } catch {
            guard case .unresolvable(let problem) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(problem.path == segmentPath)
        }
        #expect(throws: StoreMerge.Failure.notAStoreFile(path: "chatdir.json")) {
            try StoreMerge.resolve(clean, keeping: .ours, path: "chatdir.json")
        }
    }
}
