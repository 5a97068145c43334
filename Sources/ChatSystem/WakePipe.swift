#if canImport(Glibc)
    import Glibc
#endif

/// A pipe that wakes a thread blocked in ``Poll``: poll ``readEnd``, ``signal()`` from any
/// thread, ``drain()`` after waking. Both ends are non-blocking and close-on-exec (`eventfd` and
/// `pipe2` are not imported without _GNU_SOURCE).
///
/// A class, because several threads share one pipe; its ends close when the last reference goes,
/// so a `signal()` can never write its byte into a number the process has reused for another file.
public final class WakePipe: Sendable {
    private let reader: FileDescriptor
    private let writer: FileDescriptor

    /// `pipe(2)`. Throws when the process is out of descriptors (EMFILE).
    public init() throws(SystemError) {
        var ends: [Int32] = [-1, -1]
        _ = try Syscall.retrying("pipe", "(wake-up pipe)") {
            ends.withUnsafeMutableBufferPointer { Glibc.pipe($0.baseAddress) }
        }
        reader = FileDescriptor(owning: ends[0])
        writer = FileDescriptor(owning: ends[1])
        try Syscall.setFlags(ends[0], nonBlocking: true, path: "(wake-up pipe)")
        try Syscall.setFlags(ends[1], nonBlocking: true, path: "(wake-up pipe)")
    }

    /// The end to poll for readability; valid while this pipe is referenced.
    public var readEnd: Int32 { reader.rawValue }

    /// Makes ``readEnd`` readable. A full pipe already holds a wake-up, so EAGAIN is fine.
    public func signal() {
        var byte: UInt8 = 1
        _ = Glibc.write(writer.rawValue, &byte, 1)
    }

    /// Empties the pipe, so the next poll waits again.
    public func drain() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while bytes.withUnsafeMutableBytes({ Glibc.read(reader.rawValue, $0.baseAddress, $0.count) }) > 0 {}
    }
}
