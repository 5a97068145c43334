import ChatStore
import ChatSystem

/// The accepted connections that have not sent a byte yet, oldest first.
///
/// When the server is at its connection cap, it shuts the oldest of these down to make room
/// instead of refusing the newcomer: otherwise a few hundred sockets that connect and never
/// speak keep every real client out (each would also time out after the request timeout).
/// A connection leaves the list when its first bytes arrive or when it finishes; its
/// descriptor is closed only after it left, so every number in the list is still open.
final class SilentConnections: Sendable {
    private let fds = Lock<[Int32]>([])

    func add(_ fd: Int32) {
        fds.withLock { $0.append(fd) }
    }

    /// The connection spoke, or is finishing: it is no longer a candidate for eviction.
    func remove(_ fd: Int32) {
        fds.withLock { list in
            if let index = list.firstIndex(of: fd) { list.remove(at: index) }
        }
    }

    /// Shuts down the oldest silent connection (its thread wakes and finishes) and says
    /// whether there was one.
    func evictOldest() -> Bool {
        fds.withLock { list in
            guard !list.isEmpty else { return false }
            Socket.shutdown(list.removeFirst())
            return true
        }
    }
}
