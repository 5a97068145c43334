/// Tests on eight bytes at once (one `UInt64` load), for the readers' hot loops: a line's
/// record is mostly plain ASCII, and looking at it a byte at a time was most of their cost.
///
/// Each test may also report a byte above (later in memory than) a real match, never one
/// without a real match in the word: callers skip words that test false and look at the rest
/// a byte at a time.
enum ByteScan {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The eight bytes at `pointer`, the first in the lowest bits (as x86 and ARM load them).
    @inline(__always)
    static func word(_ pointer: UnsafePointer<UInt8>) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
    }

    /// Whether a byte of `word` is zero.
    @inline(__always)
    static func hasZero(_ word: UInt64) -> Bool {
        (word &- ones) & ~word & highs != 0
    }

    /// Whether a byte of `word` is `byte`.
    @inline(__always)
    static func has(_ byte: UInt8, in word: UInt64) -> Bool {
        hasZero(word ^ (ones &* UInt64(byte)))
    }

    /// Whether a byte of `word` is below `limit` (at most 128).
    @inline(__always)
    static func hasByte(below limit: UInt8, in word: UInt64) -> Bool {
        (word &- ones &* UInt64(limit)) & ~word & highs != 0
    }

    /// Whether every byte of `bytes` is ASCII.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var offset = 0
        var high: UInt64 = 0
        while offset + 8 <= bytes.count {
            high |= word(base + offset)
            offset += 8
        }
        while offset < bytes.count {
            high |= UInt64(bytes[offset])
            offset += 1
        }
        return high & highs == 0
    }
}
