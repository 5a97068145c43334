import ChatSystem

/// What `chatdir search` looks for in a message's text, and where it is: every non-overlapping
/// match as a range of UTF-8 byte offsets into the text, left to right.
public struct TextMatcher: Sendable {
    enum Kind: Sendable {
        /// The same bytes, like `grep -F`.
        case fixed([UInt8])
        /// The same characters after simple case folding, scalar by scalar.
        case folded([UInt32])
        case regex(ExtendedRegex)
    }

    let kind: Kind

    /// Byte-exact and case-sensitive: the same UTF-8 bytes, no Unicode normalisation.
    public static func fixed(_ text: String) -> TextMatcher {
        TextMatcher(kind: .fixed(Array(text.utf8)))
    }

    /// Case-insensitive: each Unicode scalar of both sides lowered (`É` finds `é`, `ß` only
    /// itself: a mapping to several scalars is not applied).
    public static func ignoringCase(_ text: String) -> TextMatcher {
        TextMatcher(kind: .folded(text.unicodeScalars.map { fold($0) }))
    }

    /// A POSIX extended regular expression (``ExtendedRegex``).
    public static func regex(_ regex: ExtendedRegex) -> TextMatcher {
        TextMatcher(kind: .regex(regex))
    }

    /// The bytes a matching record's line must hold as they are, when there are such bytes:
    /// then a segment is searched with memchr before anything is parsed.
    var literal: [UInt8]? {
        if case .fixed(let bytes) = kind { return bytes }
        return nil
    }

    /// The matches in `text`; empty when there is none (an empty pattern matches nothing).
    public func matches(in text: String) -> [Range<Int>] {
        matches(in: Array(text.utf8))
    }

    func matches(in bytes: [UInt8]) -> [Range<Int>] {
        switch kind {
        case .fixed(let needle):
            guard !needle.isEmpty else { return [] }
            var found: [Range<Int>] = []
            var from = 0
            while let hit = Sys.find(needle, in: bytes, from: from) {
                found.append(hit..<(hit + needle.count))
                from = hit + needle.count
            }
            return found
        case .folded(let needle):
            return Self.foldedMatches(needle, in: bytes)
        case .regex(let regex):
            return regex.matches(in: bytes)
        }
    }

    /// Matches of a folded needle: the text folded scalar by scalar, each scalar remembering
    /// where its bytes start, so a match maps back to the original bytes.
    private static func foldedMatches(_ needle: [UInt32], in bytes: [UInt8]) -> [Range<Int>] {
        guard !needle.isEmpty else { return [] }
        var scalars: [UInt32] = []
        var starts: [Int] = []
        var offset = 0
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            scalars.append(fold(scalar))
            starts.append(offset)
            offset += UTF8.width(scalar)
        }
        starts.append(offset)
        var found: [Range<Int>] = []
        var index = 0
        while index + needle.count <= scalars.count {
            if scalars[index] == needle[0], scalars[index..<(index + needle.count)].elementsEqual(needle) {
                found.append(starts[index]..<starts[index + needle.count])
                index += needle.count
            } else {
                index += 1
            }
        }
        return found
    }

    /// A scalar lowered when its lowercase is one scalar; ASCII without a table look-up.
    static func fold(_ scalar: Unicode.Scalar) -> UInt32 {
        let value = scalar.value
        if value < 0x80 { return value >= 0x41 && value <= 0x5A ? value + 0x20 : value }
        let lower = scalar.properties.lowercaseMapping.unicodeScalars
        guard lower.count == 1, let first = lower.first else { return value }
        return first.value
    }
}
