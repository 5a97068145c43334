import ChatDomain
import ChatSystem

/// One delivery attempt's hold on an outbox file: `flock(2)` on the file itself, taken by the
/// sync worker before it posts the message and let go once the answer is written down (the
/// message stored and the file removed, marked failed, or an attempt counted).
///
/// `chatdir cancel` takes the same lock (``Outbox/cancel(_:waiting:)``), so it waits for an
/// attempt in flight to end and never removes a message the server may be accepting. The lock
/// is on the file, not the outbox: `send` and `retry` never wait for a slow POST.
public final class OutboxClaim: Sendable {
    /// The message as it was when claimed.
    public let entry: OutboxEntry
    private let fd: FileDescriptor

    private init(entry: OutboxEntry, fd: consuming FileDescriptor) {
        self.entry = entry
        self.fd = fd
    }

    /// Claims `entry`'s file in `conversation` without waiting. Nil when the file is gone
    /// (cancelled, or moved to the back by a retry) or another process holds it (a cancel is
    /// deciding about it): the worker then leaves the message for its next look at the outbox.
    public static func take(_ entry: OutboxEntry, in conversation: Conversation) -> OutboxClaim? {
        let path =
            conversation.outboxDirectory + "/" + OutboxFile.fileName(ordinal: entry.ordinal, id: entry.clientMessageID)
        let fd: FileDescriptor
        do { fd = try FileDescriptor.open(path, [.readOnly, .noFollow]) } catch { return nil }
        do { try fd.lockExclusive(path: path) } catch { return nil }
        // A cancel may have removed the name between the open and the lock: then this lock
        // guards a file nobody can see, and the message is not to be sent.
        guard let held = try? fd.identity(path: path), Sys.identity(of: path) == held else {
            fd.unlock()
            return nil
        }
        return OutboxClaim(entry: entry, fd: fd)
    }

    /// Lets go of the file (at the latest when the claim goes away). Call it where the attempt's
    /// bookkeeping is done: Swift may end an object's life after its last use, not at the end
    /// of the scope, so an unused claim is no claim.
    public func release() {
        fd.unlock()
    }

    deinit {
        fd.unlock()
    }
}
