import ChatDomain

/// Searching a whole conversation's history: the one reader that touches every segment.
extension Conversation {
    /// How many stored messages have `word` in their text: byte-exact and case-sensitive, like
    /// `grep -F` (the same UTF-8 bytes, no Unicode folding). Reads every segment file once,
    /// oldest first, and skips lines whose raw bytes cannot hold the word: only the lines that
    /// do are parsed, so the cost is one read and one byte search per file. Lines it skips are
    /// not validated (`chatdir check` does that); a matching line that does not parse throws
    /// ``StoreError/damaged(_:)`` naming the file and line. Outbox messages are not counted.
    public func countMessages(containing word: String) throws(StoreError) -> Int {
        let needle = Array(word.utf8)
        // A word that JSON escapes (quote, backslash, control characters) is not in the raw
        // line as typed: then every line is parsed.
        let prefilter = !needle.contains { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }
        var count = 0
        for range in try segmentRanges() {
            let name = StoreLayout.messages + "/" + range.fileName
            guard let bytes = try read(name) else { continue }  // removed meanwhile
            count += try countInSegment(bytes, name: name, range: range, needle: needle, prefilter: prefilter)
        }
        return count
    }

    private func countInSegment(_ bytes: [UInt8], name: String, range: SegmentRange, needle: [UInt8], prefilter: Bool) throws(StoreError) -> Int {
        let lines = lineRanges(bytes)
        guard let closing = lines.lastIndex(where: { !$0.isEmpty }), closing > 0,
              bytes[lines[0]] == [UInt8(ascii: "[")], bytes[lines[closing]] == [UInt8(ascii: "]")] else {
            // Not the canonical one-record-per-line layout (or damaged): decode it the slow way,
            // which also names what is wrong.
            let decoded = SegmentFile.decode(bytes, path: relative(name), range: range)
            if let problem = decoded.firstError { throw .damaged(problem) }
            return decoded.messages.filter { Self.contains(Array($0.text.utf8)[...], needle) }.count
        }
        var count = 0
        for index in 1..<closing {
            var content = lines[index]
            if prefilter, !Self.contains(bytes[content], needle) { continue }
            if content.last.map({ bytes[$0] == UInt8(ascii: ",") }) ?? false { content = content.lowerBound..<(content.upperBound - 1) }
            let record: JSONValue
            do {
                record = try JSONParser.parse(bytes, in: content)
            } catch {
                throw .damaged(StoreProblem(path: relative(name), line: index + 1, "not valid JSON: \(error.reason); run chatdir check for the whole story"))
            }
            guard case let .string(text)? = record["text"] else {
                throw .damaged(StoreProblem(path: relative(name), line: index + 1, "the record has no \"text\" string; run chatdir check for the whole story"))
            }
            if Self.contains(Array(text.utf8)[...], needle) { count += 1 }
        }
        return count
    }

    /// Whether `haystack` holds the bytes of `needle` in a row (an empty needle is everywhere).
    static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        guard haystack.count >= needle.count else { return false }
        return haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pattern in
                let lastStart = hay.count - pattern.count
                var start = 0
                while start <= lastStart {
                    if hay[start] == first {
                        var offset = 1
                        while offset < pattern.count, hay[start + offset] == pattern[offset] { offset += 1 }
                        if offset == pattern.count { return true }
                    }
                    start += 1
                }
                return false
            }
        }
    }
}
