import ChatDomain
import ChatSystem

/// One stored message a search found, and where in its text the pattern matched (UTF-8 byte
/// offsets, for highlighting).
public struct SearchHit: Sendable {
    public var conversation: ConversationID
    public var message: Message
    public var matches: [Range<Int>]
}

/// `chatdir search`: every stored message of a conversation whose text matches.
extension Conversation {
    /// Calls `visit` with each stored message that `include` accepts and whose text `matcher`
    /// matches, oldest first, until `visit` returns false; returns false when it did so.
    ///
    /// A fixed, case-sensitive pattern is found the way ``countMessages(containing:)`` finds a
    /// word: memchr jumps from hit to hit in a segment's raw bytes and only those lines are
    /// read, so the cost stays about one read and one byte search per file. Any other pattern
    /// (case folded, a regex) decodes every segment. A hit's record is checked for its place
    /// (in the file's range, after the hit before it); a line without the pattern is not read,
    /// so only `chatdir check` finds every problem. Outbox messages are not searched.
    ///
    /// A Matrix store's messages are matched by the text their rows show
    /// (``searchShown(_:where:_:)``).
    /// - Throws: ``StoreError/damaged(_:)`` naming the file and line of a record that cannot
    ///   be read.
    @discardableResult
    public func search(
        _ matcher: TextMatcher, where include: (Message) -> Bool = { _ in true }, _ visit: (SearchHit) -> Bool
    ) throws(StoreError) -> Bool {
        if storeProtocol == .matrix { return try searchShown(matcher, where: include, visit) }
        // A literal that JSON escapes is not in the raw line as typed: then every line is parsed.
        let literal = matcher.literal.flatMap { bytes in
            bytes.isEmpty || bytes.contains { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }
                ? nil : bytes
        }
        for range in try segmentRanges() {
            let name = StoreLayout.messages + "/" + range.fileName
            guard let bytes = try segmentBytes(range) else { continue } // removed meanwhile
            let goOn: Bool
            if let literal, Self.isCanonicalSegment(bytes) {
                goOn = try searchRaw(
                    bytes, name: name, range: range, literal: literal, matcher: matcher, include: include, visit)
            } else {
                goOn = try searchDecoded(bytes, name: name, range: range, matcher: matcher, include: include, visit)
            }
            if !goOn { return false }
        }
        return true
    }

    /// "[\n", records, "\n]\n": the layout whose lines are records.
    static func isCanonicalSegment(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && bytes[0] == UInt8(ascii: "[") && bytes[1] == 0x0A
            && bytes[bytes.count - 1] == 0x0A && bytes[bytes.count - 2] == UInt8(ascii: "]")
            && bytes[bytes.count - 3] == 0x0A
    }

    private func searchRaw(
        _ bytes: [UInt8], name: String, range: SegmentRange, literal: [UInt8], matcher: TextMatcher,
        include: (Message) -> Bool, _ visit: (SearchHit) -> Bool
    ) throws(StoreError) -> Bool {
        var fallback: Int?
        var previous = 0
        let finished = try Self.forEachLine(holding: literal, in: bytes) { lineStart, record in
            // A record in another form (an escape in a string, keys reordered by hand) is rare,
            // and so is a sequence out of order or outside the file's range: the rest of the
            // file is then read the general way, which also names what is wrong.
            guard let message = SegmentFile.canonicalRecord(bytes, record, protocol: storeProtocol),
                range.contains(message.sequence),
                message.sequence > previous
            else {
                fallback = lineStart
                return false
            }
            previous = message.sequence
            return visitIfMatching(message, matcher: matcher, include: include, visit)
        }
        if let fallback {
            return try searchDecoded(
                bytes, name: name, range: range, matcher: matcher, include: include, fromByte: fallback, visit)
        }
        return finished
    }

    /// Calls `body` once for each line of a canonical segment that holds `literal`, in order,
    /// with where the line starts and its record (without the comma), until `body` returns
    /// false; returns false when it did. memchr jumps from hit to hit, so lines without the
    /// bytes cost nothing.
    static func forEachLine(
        holding literal: [UInt8], in bytes: [UInt8],
        _ body: (_ lineStart: Int, _ record: Range<Int>) throws(StoreError) -> Bool
    ) throws(StoreError) -> Bool {
        var position = 2
        let end = bytes.count - 2
        while let hit = Sys.find(literal, in: bytes, from: position), hit < end {
            var lineStart = hit
            while lineStart > 0, bytes[lineStart - 1] != 0x0A { lineStart -= 1 }
            var lineEnd = hit
            while lineEnd < bytes.count, bytes[lineEnd] != 0x0A { lineEnd += 1 }
            position = lineEnd + 1
            var content = lineStart..<lineEnd
            if content.last.map({ bytes[$0] == UInt8(ascii: ",") }) ?? false {
                content = content.lowerBound..<(content.upperBound - 1)
            }
            if try !body(lineStart, content) { return false }
        }
        return true
    }

    /// The general way: the whole file decoded (every error found), then each message tested.
    /// With `fromByte`, only the records on lines starting at or after that offset are visited.
    private func searchDecoded(
        _ bytes: [UInt8], name: String, range: SegmentRange, matcher: TextMatcher,
        include: (Message) -> Bool, fromByte: Int = 0, _ visit: (SearchHit) -> Bool
    ) throws(StoreError) -> Bool {
        let decoded = SegmentFile.decode(
            bytes, path: relative(name), range: range, reportLayout: false, protocol: storeProtocol)
        if let problem = decoded.firstError { throw .damaged(problem) }
        let firstLine = fromByte == 0 ? 0 : bytes[0..<fromByte].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
        for (index, message) in decoded.messages.enumerated() {
            if firstLine > 0, index < decoded.lines.count, let line = decoded.lines[index], line < firstLine {
                continue
            }
            if !visitIfMatching(message, matcher: matcher, include: include, visit) { return false }
        }
        return true
    }

    /// ``search(_:where:_:)`` by the text rows show: every segment decoded, then the edits
    /// applied across the whole history (``applyingEdits(_:)``), so an edited message matches
    /// by its newest text and an edit never matches as a message of its own; a redacted
    /// message never matches. A raw byte search cannot tell an edit's line from a message's,
    /// so this reads the conversation whole, holding its records in memory while it matches.
    private func searchShown(
        _ matcher: TextMatcher, where include: (Message) -> Bool, _ visit: (SearchHit) -> Bool
    ) throws(StoreError) -> Bool {
        var records: [Message] = []
        for range in try segmentRanges() { records.append(contentsOf: try readSegment(range)) }
        for shown in applyingEdits(records) where !shown.message.redacted {
            if !visitIfMatching(shown.message, matcher: matcher, include: include, visit) { return false }
        }
        return true
    }

    private func visitIfMatching(
        _ message: Message, matcher: TextMatcher, include: (Message) -> Bool, _ visit: (SearchHit) -> Bool
    ) -> Bool {
        guard include(message) else { return true }
        let matches = matcher.matches(in: message.text)
        guard !matches.isEmpty else { return true }
        return visit(SearchHit(conversation: id, message: message, matches: matches))
    }
}
