import ChatDomain
import ChatMatrix
import ChatStore

/// What a ``MatrixSession`` learns that the engine's copies of it share: who I am, which room
/// each conversation is, how each room's messages are numbered (``MatrixNumbering``), where the
/// last pages ended (so the next page needs no `/context`), and the newest read receipts.
///
/// Numbering is only ever done here, inside the actor, a page at a time: a catch-up walking
/// forward and a history page walking back in one room never number from a stale copy, and a
/// page that disagrees with what either numbered is refused as a whole.
actor MatrixRoomBook {
    /// A `/messages` token that continues from the message numbered `sequence` (event `eventID`).
    struct Cursor: Sendable, Equatable {
        var sequence: Int
        var eventID: MatrixEventID
        var token: String

        /// Where paging goes on after a page that numbered `numbered` (in the page's order): its
        /// last message, else this one; the page's `token`, else this one's.
        func advanced(past numbered: [MatrixNumberedEvent], token next: String?) -> Cursor {
            Cursor(
                sequence: numbered.last?.sequence ?? sequence, eventID: numbered.last?.event.eventID ?? eventID,
                token: next ?? token)
        }
    }

    private(set) var me: MatrixUserID?
    /// The rooms the last listing found me invited to.
    private(set) var invitations: [Invitation] = []
    private var rooms: [ConversationID: MatrixRoomID] = [:]
    private var encrypted: Set<ConversationID> = []
    private var numberings: [ConversationID: MatrixNumbering] = [:]
    /// After the newest message numbered going forward, and before the oldest going back.
    private var forward: [ConversationID: Cursor] = [:]
    private var backward: [ConversationID: Cursor] = [:]
    /// Each member's newest `m.read` receipt, by conversation: the event it is on.
    private var receipts: [ConversationID: [MatrixUserID: MatrixEventID]] = [:]

    func setMe(_ user: MatrixUserID) {
        me = user
    }

    /// Remembers the rooms a `/sync` listed.
    func list(_ states: [MatrixRoomState]) {
        for state in states {
            let id = ConversationID.matrixRoom(state.roomID.rawValue)
            rooms[id] = state.roomID
            if state.encrypted { encrypted.insert(id) } else { encrypted.remove(id) }
        }
    }

    func setInvitations(_ list: [Invitation]) {
        invitations = Array(list.prefix(InvitationsFile.maxInvitations))
    }

    /// Takes in what a live `/sync` says of invitations: rooms I am newly invited to join the
    /// list (as ``InvitationsFile`` keeps it, at most its limit), rooms I joined or left leave
    /// it. Returns whether the list changed.
    func updateInvitations(invited: [Invitation], joinedOrLeft rooms: Set<String>) -> Bool {
        var list = invitations.filter { !rooms.contains($0.room) }
        for invitation in invited where list.count < InvitationsFile.maxInvitations {
            if let index = list.firstIndex(where: { $0.room == invitation.room }) {
                list[index] = invitation
            } else {
                list.append(invitation)
            }
        }
        guard list != invitations else { return false }
        invitations = list
        return true
    }

    func room(_ id: ConversationID) -> MatrixRoomID? { rooms[id] }

    func knows(_ room: MatrixRoomID) -> Bool { rooms[ConversationID.matrixRoom(room.rawValue)] != nil }

    func isEncrypted(_ id: ConversationID) -> Bool { encrypted.contains(id) }

    func remember(room: MatrixRoomID, for id: ConversationID, encrypted isEncrypted: Bool) {
        rooms[id] = room
        if isEncrypted { encrypted.insert(id) }
    }

    // MARK: - Numbering

    func eventID(at sequence: Int, in id: ConversationID) -> MatrixEventID? {
        numberings[id]?.eventIDs[sequence]
    }

    func sequence(of eventID: MatrixEventID, in id: ConversationID) -> Int? {
        numberings[id]?.sequence(of: eventID)
    }

    /// Runs `body` on the room's numbering: what it numbers is kept only if it does not throw.
    func number<T: Sendable>(
        _ id: ConversationID, _ body: @Sendable (inout MatrixNumbering) throws(MatrixNumberingError) -> T
    ) throws(MatrixNumberingError) -> T {
        var numbering = numberings[id] ?? MatrixNumbering()
        let result = try body(&numbering)
        numberings[id] = numbering
        return result
    }

    func forwardCursor(_ id: ConversationID) -> Cursor? { forward[id] }
    func backwardCursor(_ id: ConversationID) -> Cursor? { backward[id] }
    /// The sequence of each room's anchor, as this process read or wrote it.
    private(set) var anchors: [ConversationID: Int] = [:]
    func setAnchor(_ sequence: Int, for id: ConversationID) { anchors[id] = sequence }

    /// Keeps where forward paging goes on, and the last event the pages walked over (of the
    /// types they asked for; nil when not known): where the walk ends if the next page is empty.
    func setForward(_ cursor: Cursor, walked: MatrixEventID?, for id: ConversationID) {
        forward[id] = cursor
        forwardWalked[id] = walked
    }
    private var forwardWalked: [ConversationID: MatrixEventID] = [:]
    func forwardWalked(_ id: ConversationID) -> MatrixEventID? { forwardWalked[id] }
    func setBackward(_ cursor: Cursor, for id: ConversationID) { backward[id] = cursor }

    /// A message's own position (`/context` with no events around it answers it as `end`):
    /// a forward page from it starts after the message, a backward page with it. One a room,
    /// the anchor's, asked for going forward and wanted again going back.
    private var positions: [ConversationID: Cursor] = [:]
    func position(_ id: ConversationID) -> Cursor? { positions[id] }
    func setPosition(_ cursor: Cursor, for id: ConversationID) { positions[id] = cursor }

    // MARK: - The live tail

    /// Each room's ``MatrixLiveTail`` while a live `/sync` runs: the events it showed that a
    /// catch-up can number without asking `/messages`.
    private var tails: [ConversationID: MatrixLiveTail] = [:]

    /// A live `/sync` begins or ends: what an earlier one showed is not known to continue.
    func forgetLiveTails() { tails = [:] }

    func receive(_ timeline: MatrixTimeline, in id: ConversationID) {
        let numbering = numberings[id]
        tails[id, default: .start].receive(timeline) { numbering?.sequence(of: $0) != nil }
    }

    /// Where the pending events of `id`'s tail follow on from, if any are pending.
    func liveTailMark(_ id: ConversationID) -> MatrixLiveTail.Mark? {
        guard case .following(_, let mark, let pending) = tails[id], !pending.isEmpty else { return nil }
        return mark
    }

    /// ``MatrixLiveTail/take(after:limit:numbering:)`` on the room's tail and numbering; the
    /// forward cursor no longer continues from the newest numbered message, so it is dropped.
    func takeLiveTail(_ id: ConversationID, after mark: MatrixLiveTail.Mark, limit: Int)
        throws(MatrixNumberingError) -> (numbered: [MatrixNumberedEvent], events: [MatrixEvent])?
    {
        guard var tail = tails[id] else { return nil }
        var numbering = numberings[id] ?? MatrixNumbering()
        defer { tails[id] = tail }
        guard let taken = try tail.take(after: mark, limit: limit, numbering: &numbering) else { return nil }
        numberings[id] = numbering
        forward[id] = nil
        forwardWalked[id] = nil
        return taken
    }

    /// A forward walk of `id` reached the room's end (``MatrixLiveTail/walked(to:mark:)``).
    func walked(_ id: ConversationID, to last: MatrixEventID?, mark: MatrixLiveTail.Mark) {
        tails[id]?.walked(to: last, mark: mark)
    }

    /// A forward walk of `id` stopped short of the room's end.
    func walkedPart(_ id: ConversationID) {
        tails[id]?.walkedPart()
    }

    // MARK: - What the last listing saw

    /// Each room's anchor as the listing's room account data held it, and its newest event of
    /// any type: a first catch-up needs no request to read the anchor, nor a forward page
    /// when the anchor is the newest event.
    private(set) var listedAnchors: [ConversationID: MatrixAnchor] = [:]
    private(set) var listedNewest: [ConversationID: MatrixEventID] = [:]

    func setListed(anchor: MatrixAnchor?, newest: MatrixEventID?, for id: ConversationID) {
        listedAnchors[id] = anchor
        listedNewest[id] = newest
        if let anchor { anchors[id] = anchor.sequence }
    }

    // MARK: - Receipts

    /// For receipts on events that take no sequence: the newest message at or before each.
    private var messagesBefore: [ConversationID: [MatrixEventID: MatrixEventID]] = [:]
    /// At most this many a room: a homeserver cannot grow the book by moving receipts around.
    static let messagesBeforeLimit = 1_000

    func messageBefore(_ eventID: MatrixEventID, in id: ConversationID) -> MatrixEventID? {
        messagesBefore[id]?[eventID]
    }

    func setMessageBefore(_ message: MatrixEventID, for eventID: MatrixEventID, in id: ConversationID) {
        if messagesBefore[id, default: [:]].count >= Self.messagesBeforeLimit { messagesBefore[id] = [:] }
        messagesBefore[id, default: [:]][eventID] = message
    }

    /// Keeps the `m.read` receipts (unthreaded or on the main timeline) of a room; returns
    /// whether any member's changed.
    @discardableResult
    func receive(_ list: [MatrixReceipt], in id: ConversationID) -> Bool {
        var changed = false
        for receipt in list where receipt.type == "m.read" && (receipt.threadID == nil || receipt.threadID == "main") {
            if receipts[id, default: [:]].updateValue(receipt.eventID, forKey: receipt.user) != receipt.eventID {
                changed = true
            }
        }
        return changed
    }

    /// Every member's newest `m.read` receipt in `id`.
    func readReceipts(_ id: ConversationID) -> [MatrixUserID: MatrixEventID] {
        receipts[id] ?? [:]
    }
}
