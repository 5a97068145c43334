#if canImport(Glibc)
    import Glibc
#endif

/// What `poll(2)` reported for one descriptor.
public struct PollResult: Sendable, Equatable {
    public var readable: Bool
    /// Hang-up or error: reading gives EOF or the error.
    public var hungUp: Bool
    /// Ready for writing (only when asked with `writable: true`).
    public var writable: Bool

    public init(readable: Bool, hungUp: Bool, writable: Bool = false) {
        self.readable = readable
        self.hungUp = hungUp
        self.writable = writable
    }

    /// Readable or hung up: a read will not block.
    public var readyToRead: Bool { readable || hungUp }
}

/// `poll(2)`, wrapped once.
///
/// Takes raw descriptor numbers: `poll` watches several at once, and the owners
/// (``FileDescriptor``s, ``WakePipe``s) stay with the caller, which must keep them open for the call.
public enum Poll {
    /// Waits until one of `fds` is readable or hung up (or writable, with `writable`), or
    /// `timeoutMilliseconds` pass (-1: for ever). One result per descriptor, in order; all false
    /// on timeout. EINTR restarts the wait.
    public static func wait(_ fds: [Int32], writable: Bool = false, timeoutMilliseconds: Int) throws(SystemError)
        -> [PollResult]
    {
        let events = Int16(writable ? POLLOUT : POLLIN)
        var entries = fds.map { pollfd(fd: $0, events: events, revents: 0) }
        let timeout = Int32(clamping: timeoutMilliseconds)
        _ = try Syscall.retrying("poll", "") {
            entries.withUnsafeMutableBufferPointer { Glibc.poll($0.baseAddress, nfds_t($0.count), timeout) }
        }
        return entries.map {
            PollResult(
                readable: $0.revents & Int16(POLLIN) != 0,
                hungUp: $0.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0,
                writable: $0.revents & Int16(POLLOUT) != 0
            )
        }
    }
}
