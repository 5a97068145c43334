import ChatDomain
import ChatSystem

/// What a line of the conversation list shows for one conversation: title, last message,
/// unread/pending/failed counts, and the error when its files are damaged.
public struct ConversationSummary: Hashable, Sendable {
    public var id: ConversationID
    public var title: String
    public var last: Message?
    /// Others' messages past my read position, counted up to ``unreadCap``.
    public var unread: Int
    public var pending: Int
    public var failed: Int
    /// The conversation's creation when this device started it (`chatdir create`) and the server
    /// has not accepted it yet: pending until the next sync posts it, failed when refused.
    public var creation: SendState?
    /// The newest of the last message's `sentAt`, the outbox's `createdAt`s and the queued
    /// creation's: the list's order.
    public var activity: String
    /// Why the conversation could not be read, naming the file; nil when it could.
    public var problem: String?

    /// Unread counting stops here (shown as 999+), so a huge backlog does not read all of history.
    public static let unreadCap = 1000

    /// Newest activity first, then by ID: the order `chatdir list` prints.
    public static func listOrder(_ lhs: ConversationSummary, _ rhs: ConversationSummary) -> Bool {
        (lhs.activity, rhs.id) > (rhs.activity, lhs.id)
    }
}

extension Conversation {
    /// Reads what the conversation list needs: the outbox, positions, and the newest segments
    /// back to my read position (at most until ``ConversationSummary/unreadCap`` unread are found).
    /// Never throws: a damaged file is reported in ``ConversationSummary/problem``.
    public func summary(me: UserID) -> ConversationSummary {
        var summary = ConversationSummary(id: id, title: id.rawValue, last: nil, unread: 0, pending: 0, failed: 0, creation: nil, activity: "", problem: nil)
        do {
            summary.title = try info()?.title ?? id.rawValue
            // One listing of outbox/: the read wish and the creation are read only when there.
            let names = try system { () throws(SystemError) in try Sys.listDirectoryIfPresent(outboxDirectory) }
            let outbox = try outboxEntries(Self.queueOrder(names))
            summary.pending = outbox.filter { $0.state == .pending }.count
            summary.failed = outbox.count - summary.pending
            let creation = names.contains(StoreLayout.creation) ? try queuedCreation() : nil
            summary.creation = creation?.state
            let wish = names.contains(StoreLayout.readPosition) ? try wantedReadPosition() : nil
            let readUpTo = max(try positions()?[me].readUpTo ?? 0, wish ?? 0)
            // Newest first from the `.newest` hint, as a page is found: no listing of messages/
            // (10,000 names at a million messages, listed twice here before).
            var walk = try SegmentWalk(self, before: nil)
            while let range = try walk.next(), range.last > readUpTo, summary.unread < ConversationSummary.unreadCap {
                let messages = try readSegment(range)
                if summary.last == nil { summary.last = messages.last }
                summary.unread += messages.filter { $0.sequence > readUpTo && $0.senderID != me }.count
            }
            if summary.last == nil {
                // All read: only the newest record is shown, read from the newest segment's tail.
                summary.last = try newestMessages(limit: 1).messages.last
            }
            summary.activity = max(summary.last?.sentAt ?? "", outbox.map(\.createdAt).max() ?? "", creation?.createdAt ?? "")
        } catch {
            summary.problem = error.description
        }
        return summary
    }
}
