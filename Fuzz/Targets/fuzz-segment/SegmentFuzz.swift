import ChatDomain

@testable import ChatStore

/// libFuzzer target for `SegmentFile.decode` (and `decodeTail` and `StoreMerge` over two segments), which reads a canonical record by a fast path and
/// everything else by the JSON parser and `RecordReader`.
/// - On every line, when the fast path reads a message, the general path reads the same message
///   with no problem; when the general path reads a message whose canonical bytes are the line
///   and need no escape (and its sequence has at most 15 digits), the fast path reads it too.
/// - The messages decoded, encoded again, decode to the same messages with no problem at all.
/// An input is read as a Matrix store's segment when it holds a Matrix record's `eventId` key
/// (the rule the merge driver applies), else as a wire v1 store's: the seeds hold both.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSegment(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let storeProtocol = StoreMerge.segmentProtocol(bytes)
    let decoded = SegmentFile.decode(bytes, path: "fuzz.json", range: nil, protocol: storeProtocol)

    for line in lineRanges(bytes) {
        var content = line
        if content.last.map({ bytes[$0] == UInt8(ascii: ",") }) == true {
            content = content.lowerBound..<(content.upperBound - 1)
        }
        let fast = SegmentFile.canonicalRecord(bytes, content, protocol: storeProtocol)
        let general = generalRecord(bytes, content, storeProtocol)
        if let fast {
            check(general == fast, "the fast path read \(fast) but the general path \(String(describing: general))")
        }
        // The fast path reads sequences of up to 15 digits (no overflow check needed); longer
        // ones are its documented hand-off to the general path, not a disagreement.
        if let general, fast == nil, general.sequence < 1_000_000_000_000_000 {
            var writer = JSONWriter()
            SegmentFile.writeRecord(general, into: &writer)
            if writer.bytes.elementsEqual(bytes[content]), !writer.bytes.contains(UInt8(ascii: "\\")) {
                fatalError(
                    "fuzz-segment invariant broken: a canonical line without escapes was refused by the fast path: \(general)"
                )
            }
        }
    }

    fuzzTail(bytes, decoded: decoded, storeProtocol)

    let rewritten = SegmentFile.encode(decoded.messages)
    let again = SegmentFile.decode(rewritten, path: "fuzz.json", range: nil, protocol: storeProtocol)
    check(
        again.messages == decoded.messages,
        "decode(encode(messages)) changed them: \(decoded.messages) vs \(again.messages)")
    check(again.problems.isEmpty, "a segment written by encode has problems: \(again.problems)")
    fuzzMerge(bytes)
    return 0
}

/// `SegmentFile.decodeTail` (what opening a conversation reads), for a page size the last byte
/// picks, against the whole file:
/// - when the whole file has no error, an accepted tail is its newest records, and says whether
///   older ones are left;
/// - a file with no problem at all (canonical, sound) is never refused.
private func fuzzTail(_ bytes: [UInt8], decoded: SegmentFile.Decoded, _ storeProtocol: StoreProtocol) {
    let count = 1 + Int(bytes.last ?? 0) % 120
    let tail = SegmentFile.decodeTail(bytes, range: nil, count: count, protocol: storeProtocol)
    if let tail, decoded.firstError == nil {
        check(
            tail.messages == Array(decoded.messages.suffix(count)),
            "the tail read \(tail.messages) but the whole file ends \(decoded.messages.suffix(count))")
        check(
            tail.hasEarlier == (decoded.messages.count > count),
            "the tail says older records are left: \(tail.hasEarlier), of \(decoded.messages.count)")
    }
    if decoded.problems.isEmpty {
        check(tail != nil, "the tail reader refused a sound canonical segment")
    }
}

/// `StoreMerge` (git's merge driver) on the input cut in two at a point its first byte picks:
/// - a clean merge is a sound segment holding every record of both sides, and the same bytes
///   either way round;
/// - a conflicted one names the conflict, and `check` reads it as one unresolved conflict;
///   every way a person resolves it as docs/FORMAT.md says is a sound segment
///   (``fuzzResolutions(_:ours:theirs:path:range:)``), either way round;
/// - a side that is not a sound segment is refused with a reason, never merged.
private func fuzzMerge(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let cut = 1 + Int(first) % max(1, bytes.count)
    let ours = Array(bytes[1..<min(cut, bytes.count)])
    let theirs = Array(bytes[min(cut, bytes.count)...])
    let path = "conversations/c/messages/0000000001-0000000100.json"
    let range = SegmentRange(containing: 1, size: 100)
    let forward: StoreMerge.Outcome
    let backward: StoreMerge.Outcome
    do {
        forward = try StoreMerge.merge(base: [], ours: ours, theirs: theirs, path: path)
        backward = try StoreMerge.merge(base: [], ours: theirs, theirs: ours, path: path)
    } catch {
        check(!error.description.isEmpty, "a refused merge gave no reason")
        return
    }
    check(forward.isClean == backward.isClean, "merge is clean one way round only")
    // The driver reads both sides as one store's, Matrix when either shows it.
    let storeProtocol = StoreMerge.segmentProtocol(ours, theirs)
    let merged = SegmentFile.decode(forward.bytes, path: path, range: range, protocol: storeProtocol)
    let ourRecords = SegmentFile.decode(ours, path: path, range: range, protocol: storeProtocol).messages
    let theirRecords = SegmentFile.decode(theirs, path: path, range: range, protocol: storeProtocol).messages
    if forward.isClean {
        check(forward.bytes == backward.bytes, "a clean merge depends on which side is ours")
        check(merged.problems.isEmpty, "a clean merge is not a sound segment: \(merged.problems)")
        // A redacted record replaces the other side's original of its event: that one is gone.
        let redacted = Set(merged.messages.filter(\.redacted).compactMap(\.eventID))
        check(
            Set(merged.messages)
                == Set(
                    (ourRecords + theirRecords).filter { record in
                        record.redacted || record.eventID.map { !redacted.contains($0) } ?? true
                    }),
            "a clean merge lost or invented records")
    } else {
        check(!forward.conflicts.isEmpty && !backward.conflicts.isEmpty, "a conflict without a reason")
        check(
            merged.problems.count == 1 && merged.problems[0].message.hasPrefix("unresolved git merge conflict"),
            "a conflicted merge is not read as one: \(merged.problems)")
        fuzzResolutions(
            forward.bytes, ours: ourRecords, theirs: theirRecords, path: path, range: range, storeProtocol)
        fuzzResolutions(
            backward.bytes, ours: theirRecords, theirs: ourRecords, path: path, range: range, storeProtocol)
    }
}

/// Every way a person resolves a conflicted segment as docs/FORMAT.md says: the marker lines
/// deleted and, in each hunk, the lines of ours or of theirs kept. All the choices up to 64 (six
/// hunks); beyond, keeping ours everywhere, theirs everywhere and 62 choices drawn from a
/// generator the file's length seeds, so a run is repeatable. Each must give:
/// - a segment `decode` finds no problem in, error or warning: a comma after every record but
///   the last, sequences ascending, each client message ID once;
/// - only records one of the sides holds; keeping one side in every hunk keeps all of its.
private func fuzzResolutions(
    _ conflicted: [UInt8], ours: [Message], theirs: [Message], path: String, range: SegmentRange,
    _ storeProtocol: StoreProtocol
) {
    let (open, middle, close) = (Array("<<<<<<< ours".utf8), Array("=======".utf8), Array(">>>>>>> theirs".utf8))
    let lines = conflicted.split(separator: 0x0A, omittingEmptySubsequences: false)
    let hunks = lines.count { $0.elementsEqual(open) }
    check(hunks > 0, "a conflicted merge has no hunk")
    // true: keep ours in that hunk.
    var choices: [[Bool]]
    if hunks <= 6 {
        choices = (0..<(1 << hunks)).map { bits in (0..<hunks).map { ((bits >> $0) & 1) == 0 } }
    } else {
        var random = SplitMix64(seed: UInt64(conflicted.count))
        choices = [Array(repeating: true, count: hunks), Array(repeating: false, count: hunks)]
        while choices.count < 64 { choices.append((0..<hunks).map { _ in Bool.random(using: &random) }) }
    }
    let sides = Set(ours + theirs)
    for choice in choices {
        var kept: [ArraySlice<UInt8>] = []
        var hunk = 0
        var inside: Bool? // nil between hunks; true on our side of one, false on theirs
        for line in lines {
            if line.elementsEqual(open) {
                check(inside == nil, "a hunk opens inside another")
                inside = true
            } else if line.elementsEqual(middle) {
                check(inside == true, "a ======= line outside a hunk's ours")
                inside = false
            } else if line.elementsEqual(close) {
                check(inside == false, "a hunk closes before its theirs")
                inside = nil
                hunk += 1
            } else if inside == nil || inside == choice[hunk] {
                kept.append(line)
            }
        }
        check(inside == nil, "the last hunk is not closed")
        let said = choice.map { $0 ? "ours" : "theirs" }.joined(separator: ",")
        let resolved = SegmentFile.decode(
            Array(kept.joined(separator: [0x0A])), path: path, range: range, protocol: storeProtocol)
        check(resolved.problems.isEmpty, "keeping \(said) in the \(hunks) hunks leaves problems: \(resolved.problems)")
        check(Set(resolved.messages).isSubset(of: sides), "keeping \(said) gives records neither side holds")
        if choice.allSatisfy({ $0 }) {
            check(Set(ours).isSubset(of: resolved.messages), "keeping ours in every hunk loses records of ours")
        }
        if !choice.contains(true) {
            check(Set(theirs).isSubset(of: resolved.messages), "keeping theirs in every hunk loses records of theirs")
        }
    }
}

/// The message the general path reads from one record, or nil when it finds a problem.
private func generalRecord(_ bytes: [UInt8], _ content: Range<Int>, _ storeProtocol: StoreProtocol) -> Message? {
    guard let value = try? JSONParser.parse(bytes, in: content) else { return nil }
    var problems: [StoreProblem] = []
    guard var reader = RecordReader(value, what: "a message", path: "fuzz.json", line: 1, problems: &problems) else {
        return nil
    }
    return SegmentFile.fields(&reader, protocol: storeProtocol).message
}

private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("fuzz-segment invariant broken: \(message())") }
}
