/// The highest sequence `s` such that every sequence from `floor + 1` through `s` is in `sequences`;
/// `floor` when `floor + 1` is missing. Used for "delivered up to" and gap detection.
public func contiguousHigh(from floor: Int, in sequences: some Sequence<Int>) -> Int {
    let present = Set(sequences)
    var high = floor
    while present.contains(high + 1) { high += 1 }
    return high
}
