/// Byte offsets of line starts, for turning a parser's byte offset into a 1-based line number.
struct LineIndex {
    private var starts: [Int] = [0]

    init(_ bytes: [UInt8]) {
        for (offset, byte) in bytes.enumerated() where byte == 0x0A {
            starts.append(offset + 1)
        }
    }

    func line(atOffset offset: Int) -> Int {
        var low = 0
        var high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= offset { low = mid } else { high = mid - 1 }
        }
        return low + 1
    }
}

/// The lines of a file split at LF, as byte ranges (without the LF).
func lineRanges(_ bytes: [UInt8]) -> [Range<Int>] {
    var ranges: [Range<Int>] = []
    var start = 0
    for offset in bytes.indices where bytes[offset] == 0x0A {
        ranges.append(start..<offset)
        start = offset + 1
    }
    if start < bytes.count { ranges.append(start..<bytes.count) }
    return ranges
}
