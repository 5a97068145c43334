#if canImport(Glibc)
    import Glibc
#endif

/// A POSIX extended regular expression (`regcomp(3)` with `REG_EXTENDED`), matched against
/// bytes with `regexec(3)`. The process runs in the C locale, so the pattern works on bytes:
/// `.` is one byte of UTF-8 and `REG_ICASE` folds ASCII letters only.
///
/// A class, because the compiled `regex_t` is freed once (`regfree(3)`) when the last
/// reference goes; glibc's `regexec` takes its own lock, so one value may be shared.
public final class ExtendedRegex: @unchecked Sendable {
    /// Why a pattern did not compile, in `regerror(3)`'s words (`Unmatched ( or \(`).
    public struct CompileError: Error, Equatable, Sendable, CustomStringConvertible {
        public var pattern: String
        public var reason: String
        public var description: String {
            "\(pattern.debugDescription) is not a valid extended regular expression: \(reason)"
        }
    }

    /// On the heap: regexec takes a pointer, and a stored property passed `inout` from two
    /// threads would trip Swift's exclusivity check.
    private let compiled: UnsafeMutablePointer<regex_t>
    public let pattern: String

    /// Compiles `pattern`; `ignoreCase` adds `REG_ICASE`.
    /// - Throws: ``CompileError`` with regerror's text for a pattern regcomp refuses.
    public init(_ pattern: String, ignoreCase: Bool = false) throws(CompileError) {
        self.pattern = pattern
        let compiled = UnsafeMutablePointer<regex_t>.allocate(capacity: 1)
        compiled.initialize(to: regex_t())
        let flags = REG_EXTENDED | (ignoreCase ? REG_ICASE : 0)
        let status = regcomp(compiled, pattern, flags)
        guard status == 0 else {
            var buffer = [CChar](repeating: 0, count: 256)
            _ = regerror(status, compiled, &buffer, buffer.count)
            compiled.deallocate()
            let reason = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw CompileError(pattern: pattern, reason: reason)
        }
        self.compiled = compiled
    }

    deinit {
        regfree(compiled)
        compiled.deallocate()
    }

    /// Every non-overlapping match in `bytes`, as byte ranges, left to right. Empty matches
    /// (`x*` where there is no x) are skipped: they mark nothing. Uses `REG_STARTEND`, so a NUL
    /// byte in the text does not end it. The text is still given a NUL after its end: glibc
    /// stops at `rm_eo`, but a reader that does not know `REG_STARTEND` (AddressSanitizer's
    /// `regexec` interceptor measures the string with `strlen`) would read past the buffer.
    public func matches(in bytes: [UInt8]) -> [Range<Int>] {
        var found: [Range<Int>] = []
        var start = 0
        var terminated = bytes
        terminated.append(0)
        terminated.withUnsafeBytes { buffer in
            // An empty text holds only empty matches, which mark nothing.
            guard let base = buffer.baseAddress?.assumingMemoryBound(to: CChar.self) else { return }
            while start < bytes.count {
                var match = regmatch_t(rm_so: regoff_t(start), rm_eo: regoff_t(bytes.count))
                guard regexec(compiled, base, 1, &match, REG_STARTEND) == 0 else { return }
                let lower = Int(match.rm_so)
                let upper = Int(match.rm_eo)
                if upper > lower { found.append(lower..<upper) }
                start = max(upper, lower + 1)
            }
        }
        return found
    }
}
