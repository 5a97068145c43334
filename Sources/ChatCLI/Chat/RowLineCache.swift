import ChatSystem

/// Rows laid out as lines, kept between frames: a key press redraws the screen, and wrapping
/// every row in view again (twice: once to find the view, once to draw it) was most of what a
/// key cost. The key is everything the lines depend on, so a row that changes (a tick, a
/// resize, colour on or off) is laid out afresh; copies of the model share the one cache,
/// which is safe because an entry is only ever a pure function of its key.
final class RowLineCache: Sendable {
    struct Key: Hashable, Sendable {
        var row: RowState
        var senderWidth: Int
        var timeWidth: Int
        var width: Int
        var color: Bool
        var hint: PasteHint
    }

    private let entries = Lock<[Key: [String]]>([:])
    /// More entries than any screen needs; past it the cache starts again rather than grow.
    static let capacity = 4096

    func lines(_ key: Key, _ make: () -> [String]) -> [String] {
        if let cached = entries.withLock({ $0[key] }) { return cached }
        let lines = make()
        entries.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = lines
        }
        return lines
    }
}
