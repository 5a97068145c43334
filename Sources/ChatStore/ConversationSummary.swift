import ChatDomain
import ChatSystem

/// What a line of the conversation list shows for one conversation: title, last message,
/// unread/pending/failed counts, and the error when its files are damaged.
public struct ConversationSummary: Hashable, Sendable {
    public var id: ConversationID
    public var title: String
    /// The newest message a row shows, its text and kind those of its newest edit when
    /// ``lastEdited`` (an edit is no message of its own: ``applyingEdits(_:)``).
    public var last: Message?
    /// Others' messages past my read position (edits not counted), counted up to ``unreadCap``.
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
    /// Whether ``last`` shows an edit's text.
    public var lastEdited = false
    /// A Matrix room that is end-to-end encrypted, which chatdir cannot read (its details say so).
    public var encrypted = false

    /// Unread counting stops here (shown as 999+), so a huge backlog does not read all of history.
    public static let unreadCap = 1000

    /// How many of the newest records are read for the last message when the newest record is
    /// an edit (Matrix stores): an edit usually follows its original closely, and a list line
    /// must not read a conversation's history. Past that many edits in a row, no last message.
    static let editWindow = 100

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
        var summary = ConversationSummary(
            id: id, title: id.rawValue, last: nil, unread: 0, pending: 0, failed: 0, creation: nil, activity: "",
            problem: nil)
        do {
            try requirePlainDirectories()
            let details = try info()
            summary.title = details?.title ?? id.rawValue
            summary.encrypted = details?.encrypted == true
            // One listing of outbox/: the read wish and the creation are read only when there.
            let names = try system { () throws(SystemError) in try Sys.listDirectoryIfPresent(outboxDirectory) }
            let outbox = try outboxEntries(Self.queueOrder(names))
            summary.pending = outbox.filter { $0.state == .pending }.count
            summary.failed = outbox.count - summary.pending
            let creation = names.contains(StoreLayout.creation) ? try queuedCreation() : nil
            summary.creation = creation?.state
            let wish = names.contains(StoreLayout.readPosition) ? try wantedReadPosition() : nil
            let readUpTo = max(try positions()?[me].readUpTo ?? 0, wish ?? 0)
            // Only the records past my read position, from the segments' ends; whole files when a
            // tail is not plainly sound, whose decoder names the damaged file and line.
            if let fromTails = try unreadFromTails(me: me, readUpTo: readUpTo) {
                (summary.last, summary.unread, summary.lastEdited) = fromTails
            } else {
                (summary.last, summary.unread, summary.lastEdited) = try unreadDecodingWhole(me: me, readUpTo: readUpTo)
            }
            if summary.last == nil {
                // All read: only the newest record is shown, read from the newest segment's tail,
                // or the few before it when it is an edit.
                var newest = try newestMessages(limit: 1).messages
                if newest.last?.replaces != nil {
                    newest = try newestMessages(limit: ConversationSummary.editWindow).messages
                }
                let shown = applyingEdits(newest).last
                (summary.last, summary.lastEdited) = (shown?.message, shown?.edited ?? false)
            }
            summary.activity = max(
                summary.last?.sentAt ?? "", outbox.map(\.createdAt).max() ?? "", creation?.createdAt ?? "")
        } catch {
            summary.problem = error.description
        }
        return summary
    }

    /// The newest message and the count of others' messages past `readUpTo`, segment by segment
    /// newest first until ``ConversationSummary/unreadCap`` is reached, decoding only the records
    /// past `readUpTo` from each segment's end (``SegmentFile/decodeTail(_:range:count:below:above:)``).
    /// Segments are found from the `.newest` hint, as a page is: no listing of messages/. Nil
    /// when a tail is not plainly canonical and sound or a client ID repeats among the records
    /// read; the last message is nil when every message is read.
    func unreadFromTails(me: UserID, readUpTo: Int) throws(StoreError) -> (
        last: Message?, unread: Int, lastEdited: Bool
    )? {
        var walk = try SegmentWalk(self, before: nil)
        var unread = 0
        var read: [Message] = []
        while let range = try walk.next(), range.last > readUpTo, unread < ConversationSummary.unreadCap {
            guard let bytes = try segmentBytes(range) else { continue } // removed meanwhile
            guard
                let tail = SegmentFile.decodeTail(
                    bytes, range: range, count: .max, above: readUpTo, protocol: storeProtocol)
            else {
                return nil
            }
            unread += Self.unread(tail.messages, me: me)
            read.append(contentsOf: tail.messages)
        }
        if Self.repeatsClientID(read) { return nil }
        let last = Self.newestShown(read)
        return (last?.message, unread, last?.edited ?? false)
    }

    /// Others' messages among `messages`; an edit is not a new message.
    static func unread(_ messages: [Message], me: UserID) -> Int {
        messages.reduce(0) { $1.senderID != me && $1.replaces == nil ? $0 + 1 : $0 }
    }

    /// The newest message of `records` (in any order) as its row shows it, with the edits among
    /// them applied; nil when every record is an edit.
    static func newestShown(_ records: [Message]) -> ShownMessage? {
        // Without edits (every wire v1 store) the newest record is the answer, found without a sort.
        guard records.contains(where: { $0.replaces != nil }) else {
            return records.max { $0.sequence < $1.sequence }.map { ShownMessage(message: $0, edited: false) }
        }
        return applyingEdits(records.sorted { $0.sequence < $1.sequence }).last
    }

    /// The same from whole segment files, each decoded and checked in full: throws the first
    /// error of a damaged file, naming file and line.
    func unreadDecodingWhole(me: UserID, readUpTo: Int) throws(StoreError) -> (
        last: Message?, unread: Int, lastEdited: Bool
    ) {
        var walk = try SegmentWalk(self, before: nil)
        var read: [Message] = []
        var unread = 0
        while let range = try walk.next(), range.last > readUpTo, unread < ConversationSummary.unreadCap {
            let messages = try readSegment(range).filter { $0.sequence > readUpTo }
            unread += Self.unread(messages, me: me)
            read.append(contentsOf: messages)
        }
        let last = Self.newestShown(read)
        return (last?.message, unread, last?.edited ?? false)
    }
}
