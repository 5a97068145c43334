/// The range of sequences one segment file holds: `first = ((s - 1) / size) * size + 1`,
/// `last = first + size - 1`, named `<first>-<last>.json` with both zero-padded to 10 digits.
public struct SegmentRange: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let first: Int
    public let last: Int

    /// The segment that holds `sequence` in a store whose segments hold `size` messages.
    public init(containing sequence: Int, size: Int) {
        precondition(sequence >= 1 && size >= 1, "sequence and size start at 1")
        first = ((sequence - 1) / size) * size + 1
        last = first + size - 1
    }

    init(first: Int, last: Int) {
        self.first = first
        self.last = last
    }

    /// Parses a segment file name; nil when it is not `<10 digits>-<10 digits>.json` with first ≤ last.
    public init?(fileName: String) {
        let bytes = Array(fileName.utf8)
        guard bytes.count == 26, bytes[10] == UInt8(ascii: "-"), fileName.hasSuffix(".json") else { return nil }
        func number(_ slice: ArraySlice<UInt8>) -> Int? {
            guard slice.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return Int(String(decoding: slice, as: UTF8.self))
        }
        guard let first = number(bytes[0..<10]), let last = number(bytes[11..<21]), first >= 1, first <= last else {
            return nil
        }
        self.first = first
        self.last = last
    }

    public var fileName: String { Self.pad(first) + "-" + Self.pad(last) + ".json" }

    public func contains(_ sequence: Int) -> Bool { sequence >= first && sequence <= last }

    /// Whether this is the range the keying rule gives for a store of segment size `size`.
    public func isAligned(size: Int) -> Bool {
        self == SegmentRange(containing: first, size: size)
    }

    public var description: String { "\(first)–\(last)" }
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.first < rhs.first }

    private static func pad(_ number: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 10 - digits.count)) + digits
    }
}
