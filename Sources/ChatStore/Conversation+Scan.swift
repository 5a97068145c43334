import ChatDomain
import ChatSystem

/// Searching a whole conversation's history: the one reader that touches every segment.
extension Conversation {
    /// How many stored messages have `word` in their text: byte-exact and case-sensitive, like
    /// `grep -F` (the same UTF-8 bytes, no Unicode folding). Reads every segment file once,
    /// oldest first, and skips lines whose raw bytes cannot hold the word; in a line that can,
    /// a canonical record's unescaped text is searched in place and anything else is parsed,
    /// so the cost is about one read and one byte search per file. Records are not validated
    /// (`chatdir check` does that); a candidate line that does not parse throws
    /// ``StoreError/damaged(_:)`` naming the file and line. Outbox messages are not counted.
    public func countMessages(containing word: String) throws(StoreError) -> Int {
        let needle = Array(word.utf8)
        // A word that JSON escapes (quote, backslash, control characters) is not in the raw
        // line as typed: then every line is parsed.
        let prefilter = !needle.contains { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }
        var count = 0
        for range in try segmentRanges() {
            let name = StoreLayout.messages + "/" + range.fileName
            guard let bytes = try segmentBytes(range) else { continue } // removed meanwhile
            count += try countInSegment(bytes, name: name, range: range, needle: needle, prefilter: prefilter)
        }
        return count
    }

    private func countInSegment(_ bytes: [UInt8], name: String, range: SegmentRange, needle: [UInt8], prefilter: Bool)
        throws(StoreError) -> Int
    {
        // The canonical layout starts with "[\n" and ends with "\n]\n"; anything else (another
        // layout, a damaged file) is decoded the slow way, which also names what is wrong.
        guard Self.isCanonicalSegment(bytes), prefilter, !needle.isEmpty else {
            let decoded = SegmentFile.decode(
                bytes, path: relative(name), range: range, reportLayout: false, protocol: storeProtocol)
            if let problem = decoded.firstError { throw .damaged(problem) }
            return decoded.messages.filter { Self.contains(Array($0.text.utf8)[...], needle) }.count
        }
        // Only lines that hold the word are looked at, each once.
        var count = 0
        _ = try Self.forEachLine(holding: needle, in: bytes) { lineStart, content throws(StoreError) in
            // Canonical records end with the text ("text" sorts last): when its raw bytes hold no
            // escape, they are the text itself and the line need not be parsed.
            if let raw = Self.rawText(bytes, content) {
                if Self.contains(bytes[raw], needle) { count += 1 }
                return true
            }
            let line = bytes[0..<lineStart].reduce(1) { $1 == 0x0A ? $0 + 1 : $0 }
            let record: JSONValue
            do throws(JSONParser.Failure) {
                record = try JSONParser.parse(bytes, in: content)
            } catch {
                throw .damaged(
                    StoreProblem(
                        path: relative(name), line: line,
                        "not valid JSON: \(error.reason); run chatdir check for the whole story"))
            }
            guard case .string(let text)? = record["text"] else {
                throw .damaged(
                    StoreProblem(
                        path: relative(name), line: line,
                        "the record has no \"text\" string; run chatdir check for the whole story"))
            }
            if Self.contains(Array(text.utf8)[...], needle) { count += 1 }
            return true
        }
        return count
    }

    private static let textKey = Array(#","text":""#.utf8)

    /// The byte range of the text in a canonical record `{…,"text":"…"}` whose text has no
    /// escapes; nil otherwise (then the record is parsed). `,"text":"` cannot occur inside a
    /// string value (a quote there is escaped), so its first occurrence is the key.
    static func rawText(_ bytes: [UInt8], _ record: Range<Int>) -> Range<Int>? {
        guard record.count >= textKey.count + 3, bytes[record.upperBound - 1] == UInt8(ascii: "}"),
            bytes[record.upperBound - 2] == UInt8(ascii: "\""), bytes[record.lowerBound] == UInt8(ascii: "{")
        else { return nil }
        let end = record.upperBound - 2
        guard let key = firstIndex(of: textKey, in: bytes[record]) else { return nil }
        let start = key + textKey.count
        // No escape and no quote: a quote here would be structure (keys in another order).
        guard start <= end,
            !bytes[start..<end].contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") })
        else { return nil }
        return start..<end
    }

    /// Where the bytes of `needle` first start in `haystack` (an index of the base array).
    static func firstIndex(of needle: [UInt8], in haystack: ArraySlice<UInt8>) -> Int? {
        guard let first = needle.first else { return haystack.startIndex }
        guard haystack.count >= needle.count else { return nil }
        let found: Int? = haystack.withUnsafeBufferPointer { hay in
            needle.withUnsafeBufferPointer { pattern in
                let lastStart = hay.count - pattern.count
                var start = 0
                while start <= lastStart {
                    if hay[start] == first {
                        var offset = 1
                        while offset < pattern.count, hay[start + offset] == pattern[offset] { offset += 1 }
                        if offset == pattern.count { return start }
                    }
                    start += 1
                }
                return nil
            }
        }
        return found.map { haystack.startIndex + $0 }
    }

    /// Whether `haystack` holds the bytes of `needle` in a row (an empty needle is everywhere).
    static func contains(_ haystack: ArraySlice<UInt8>, _ needle: [UInt8]) -> Bool {
        firstIndex(of: needle, in: haystack) != nil
    }
}
