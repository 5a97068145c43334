/// Resolving a file git left with conflict markers the way docs/FORMAT.md tells a person to:
/// delete the marker lines and, in each hunk, the side not kept. Bytes in, bytes out, so a
/// test can try every choice on what the merge driver (or git with it) wrote.

/// The side of one conflict hunk a person keeps.
public enum KeptSide: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case ours, theirs

    public var description: String { self == .ours ? "ours" : "theirs" }
}

/// `bytes` with every hunk resolved by hand: the `<<<<<<<`, `=======` and `>>>>>>>` lines
/// deleted, and in the n-th hunk the lines of the side `keeping[n]` does not name; every other
/// line is left as it was. Nil when the markers do not make whole hunks one after another
/// (`<<<<<<<`, `=======`, `>>>>>>>`) or `keeping` does not have one choice per hunk.
public func resolvingConflicts(_ bytes: [UInt8], keeping: [KeptSide]) -> [UInt8]? {
    enum Place { case outside, ours, theirs }
    var place = Place.outside
    var hunk = 0
    var kept: [ArraySlice<UInt8>] = []
    for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
        switch conflictMarker(line) {
        case "<"?:
            guard place == .outside, hunk < keeping.count else { return nil }
            place = .ours
        case "="?:
            guard place == .ours else { return nil }
            place = .theirs
        case ">"?:
            guard place == .theirs else { return nil }
            place = .outside
            hunk += 1
        default:
            switch place {
            case .outside: kept.append(line)
            case .ours: if keeping[hunk] == .ours { kept.append(line) }
            case .theirs: if keeping[hunk] == .theirs { kept.append(line) }
            }
        }
    }
    guard place == .outside, hunk == keeping.count else { return nil }
    return Array(kept.joined(separator: [0x0A]))
}

/// How many conflict hunks (`<<<<<<<` lines) `bytes` holds.
public func conflictHunkCount(_ bytes: [UInt8]) -> Int {
    bytes.split(separator: 0x0A, omittingEmptySubsequences: false).count { conflictMarker($0) == "<" }
}

/// Every way of keeping one side in each of `hunks` hunks: 2^hunks choices, all ours first.
public func everyChoice(ofHunks hunks: Int) -> [[KeptSide]] {
    (0..<(1 << hunks)).map { bits in (0..<hunks).map { bits & (1 << ($0)) == 0 ? .ours : .theirs } }
}

/// "<", "=" or ">" for a marker line as git writes them (seven of the character, then the end
/// of the line, or a space and a label for "<" and ">"); nil for any other line.
private func conflictMarker(_ line: ArraySlice<UInt8>) -> Character? {
    guard line.count >= 7, let first = line.first,
        [UInt8(ascii: "<"), UInt8(ascii: "="), UInt8(ascii: ">")].contains(first),
        line.prefix(7).allSatisfy({ $0 == first })
    else { return nil }
    let rest = line.dropFirst(7)
    if first == UInt8(ascii: "=") { return rest.isEmpty ? "=" : nil }
    return rest.isEmpty || rest.first == UInt8(ascii: " ") ? Character(UnicodeScalar(first)) : nil
}
