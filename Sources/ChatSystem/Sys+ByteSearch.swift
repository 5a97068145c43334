#if canImport(Glibc)
    import Glibc
#endif

extension Sys {
    /// Where `needle` first occurs in `haystack` at or after `from`; nil when it does not. An
    /// empty needle is found at `from`. Uses glibc's vectorised `memchr(3)` for the first byte
    /// and `memcmp(3)` for the rest (`memmem` is a GNU extension Swift does not import).
    public static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard from <= haystack.count else { return nil }
        guard let first = needle.first else { return from }
        return haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { pattern -> Int? in
                guard let base = hay.baseAddress, let patternBase = pattern.baseAddress else { return nil }
                var start = from
                let lastStart = hay.count - pattern.count
                while start <= lastStart {
                    guard let hit = memchr(base + start, Int32(first), lastStart - start + 1) else { return nil }
                    let offset = base.distance(to: UnsafeRawPointer(hit))
                    if memcmp(base + offset, patternBase, pattern.count) == 0 { return offset }
                    start = offset + 1
                }
                return nil
            }
        }
    }
}
