#if canImport(Glibc)
    import Glibc
#endif

/// Standard input, output and error, through `read(2)` and `write(2)` (C's `stdout` is not
/// concurrency-safe).
///
/// Raw numbers 0, 1 and 2, not ``FileDescriptor``s: the process does not own them and must
/// never close them.
public enum StandardIO {
    public static let input: Int32 = 0
    public static let output: Int32 = 1
    public static let error: Int32 = 2

    /// Writes every byte of `text` to `fd` (looping over partial writes and EINTR).
    public static func write(_ fd: Int32, _ text: String) throws(SystemError) {
        try write(fd, bytes: Array(text.utf8))
    }

    /// Writes every one of `bytes` to `fd` (looping over partial writes and EINTR).
    public static func write(_ fd: Int32, bytes: [UInt8]) throws(SystemError) {
        try Syscall.writeAll(fd, bytes, path: fd == output ? "(standard output)" : "(standard error)")
    }

    /// One `read(2)` of what `fd` has now (at most `buffer.count` bytes): 0 at its end.
    public static func readSome(_ fd: Int32 = input, into buffer: inout [UInt8]) throws(SystemError) -> Int {
        try Syscall.read(fd, into: &buffer, path: "(standard input)")
    }

    /// Reads `fd` until its end or until `limit` bytes are read, whichever comes first, in
    /// memory bounded by `limit` whatever the other end writes: a caller that wants to know
    /// whether there was more asks for one byte past what it accepts.
    public static func read(_ fd: Int32 = input, atMost limit: Int) throws(SystemError) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: max(0, limit))
        var filled = 0
        while filled < result.count {
            let count = try Syscall.read(fd, into: &result, from: filled, path: "(standard input)")
            if count == 0 { break }
            filled += count
        }
        result.removeSubrange(filled...)
        return result
    }
}
