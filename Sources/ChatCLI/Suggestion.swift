/// "Did you mean …": the known words closest to a mistyped one, only when they are close.
///
/// Closeness is the optimal-string-alignment form of the Damerau–Levenshtein distance (a
/// swapped pair of neighbours counts as one edit, as in `serach`), on the words without their
/// leading dashes. A word is close when at most a third of its letters differ, at least one and
/// at most two: `snd` → `send`, `--limt` → `--limit`, but `frobnicate` suggests nothing.
enum Suggestion {
    /// The words of `known` nearest to `typed`, in their given order; empty when none is close.
    static func closest(to typed: String, among known: [String]) -> [String] {
        let word = Array(typed.drop { $0 == "-" }.lowercased())
        guard !word.isEmpty else { return [] }
        let allowed = min(2, max(1, word.count / 3))
        var best = allowed + 1
        var found: [String] = []
        for candidate in known {
            let distance = Self.distance(word, Array(candidate.drop { $0 == "-" }.lowercased()))
            if distance < best {
                best = distance
                found = [candidate]
            } else if distance == best {
                found.append(candidate)
            }
        }
        return found
    }

    /// Words ``closest(to:among:)`` found, as an English question: "did you mean `send`?",
    /// "did you mean `seed` or `send`?"; nil when there are none.
    static func question(_ found: [String]) -> String? {
        guard let last = found.last else { return nil }
        let quoted = found.dropLast().map { "`\($0)`" }
        return "did you mean " + (quoted.isEmpty ? "" : quoted.joined(separator: ", ") + " or ") + "`\(last)`?"
    }

    /// Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        // Three rows of the table: the one before the previous (for swaps), the previous, this one.
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
