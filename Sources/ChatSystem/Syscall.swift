#if canImport(Glibc)
    import Glibc
#endif

/// The one EINTR path: every wrapper in this module calls the C function through
/// ``retrying(_:_:_:)``, which repeats it while it fails with EINTR and turns any other failure
/// into a ``SystemError`` naming the call and its path.
enum Syscall {
    /// Calls `call` until it returns a value ≥ 0 or fails with something other than EINTR.
    @inline(__always)
    static func retrying<T: BinaryInteger>(
        _ operation: @autoclosure () -> String, _ path: @autoclosure () -> String, _ call: () -> T
    ) throws(SystemError) -> T {
        while true {
            let result = call()
            if result >= 0 { return result }
            let code = Errno.current
            if code == .interrupted { continue }
            throw SystemError(operation: operation(), path: path(), errno: code)
        }
    }

    /// Writes every byte of `bytes` to `fd`, looping over partial writes (and EINTR).
    static func writeAll(_ fd: Int32, _ bytes: [UInt8], operation: String = "write", path: String) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let written = try retrying(operation, path) {
                bytes.withUnsafeBytes { buffer in
                    Glibc.write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                }
            }
            offset += written
        }
    }

    /// One `read(2)` into `buffer` from `offset`; 0 at the end of the file.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws(SystemError) -> Int {
        try retrying("read", path) { Glibc.read(fd, buffer.baseAddress, buffer.count) }
    }

    static func read(_ fd: Int32, into buffer: inout [UInt8], from offset: Int = 0, path: String) throws(SystemError)
        -> Int
    {
        try retrying("read", path) {
            buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
        }
    }

    /// Sets close-on-exec and, when asked, non-blocking mode (for descriptors made by calls that
    /// take no such flags here: `pipe2` and `accept4` are not imported without _GNU_SOURCE).
    static func setFlags(_ fd: Int32, nonBlocking: Bool, path: String) throws(SystemError) {
        _ = try retrying("fcntl", path) { fcntl(fd, F_SETFD, FD_CLOEXEC) }
        guard nonBlocking else { return }
        let flags = try retrying("fcntl", path) { fcntl(fd, F_GETFL) }
        _ = try retrying("fcntl", path) { fcntl(fd, F_SETFL, flags | O_NONBLOCK) }
    }

    /// `close(2)`, never retried: on Linux the descriptor is gone even when it reports EINTR.
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }
}
