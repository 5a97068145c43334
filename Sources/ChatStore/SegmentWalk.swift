/// The segment files of a page, newest first. Walks back one range at a time from the hinted
/// newest segment while the files are there (no directory listing: opening a conversation of
/// 1,000,000 messages costs the same as one of 10,000); at the first missing range, or without
/// a hint, it lists the directory once and goes on from the listing.
struct SegmentWalk {
    private let conversation: Conversation
    private let before: Int?
    /// Fast mode: the next range to try.
    private var probe: SegmentRange?
    /// Whether `probe` was seen to exist already (the hinted newest, checked by the hint's reader).
    private var probeSeen = false
    /// Slow mode: the ranges left, ascending.
    private var listed: [SegmentRange]?

    init(_ conversation: Conversation, before: Int?) throws(StoreError) {
        self.conversation = conversation
        self.before = before
        if before == nil, let newest = conversation.hintedNewestSegment() {
            probe = newest
            probeSeen = true
        } else {
            try list(below: before.map { $0 } ?? Int.max)
        }
    }

    private mutating func list(below sequence: Int) throws(StoreError) {
        probe = nil
        probeSeen = false
        listed = try conversation.segmentRanges().filter { $0.first < sequence }
    }

    mutating func next() throws(StoreError) -> SegmentRange? {
        if let range = probe {
            if probeSeen || conversation.hasSegment(range) {
                probeSeen = false
                probe =
                    range.first > 1 ? SegmentRange(containing: range.first - 1, size: conversation.segmentSize) : nil
                if probe == nil { listed = [] }
                return range
            }
            try list(below: range.last + 1)
        }
        return listed?.popLast()
    }

    /// Whether older segments remain after the ones returned.
    mutating func hasMore() throws(StoreError) -> Bool {
        if let range = probe {
            if probeSeen || conversation.hasSegment(range) { return true }
            try list(below: range.last + 1)
        }
        return !(listed?.isEmpty ?? true)
    }
}
