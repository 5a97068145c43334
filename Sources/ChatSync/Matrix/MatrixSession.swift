import ChatDomain
import ChatMatrix
import ChatProtocol
import ChatStore

/// The Matrix client-server API behind the engine's ``ServerSession``: rooms are
/// conversations, and sequences are the room's numbering (``MatrixNumbering``: counted from the
/// anchor every device of the account reads from the room's account data).
///
/// The engine asks in sequences; this session finds the event a sequence is (numbered in this
/// process, else read from the store's record, which carries its event ID), pages `/messages`
/// from there, and numbers what comes back, refusing a page that disagrees with what was
/// numbered or stored. Delivery is `PUT …/send` with the client message ID as the transaction
/// ID; its place arrives with the next catch-up (``Delivery/accepted``). Live updates are a
/// long-poll `/sync` loop: a room whose timeline or receipts changed is announced
/// (``LiveUpdate/changed(_:)``) and the engine catches it up; typing comes as events.
/// Matrix has no delivered receipts, and read positions come from `m.read` receipts.
struct MatrixSession: ServerSession {
    private(set) var client: MatrixClient
    private let book: MatrixRoomBook
    private let store: SyncStore
    /// How long a live `/sync` asks the homeserver to hold an answer back.
    private let longPoll: Duration

    var server: ServerAddress { client.server }
    var capabilities: ServerCapabilities {
        ServerCapabilities(
            deliveredPositions: false, positionsOnRequest: true, anchoredNumbering: true,
            remembersClientMessageIDs: false, membershipEnds: true)
    }
    var passDeadline: PassDeadline? {
        get { client.passDeadline }
        set { client.passDeadline = newValue }
    }

    init(client: MatrixClient, store: SyncStore, longPoll: Duration = .seconds(30)) {
        self.client = client
        self.store = store
        self.longPoll = longPoll
        book = MatrixRoomBook()
    }

    private init(client: MatrixClient, book: MatrixRoomBook, store: SyncStore, longPoll: Duration) {
        self.client = client
        self.book = book
        self.store = store
        self.longPoll = longPoll
    }

    func renewing(token: String) -> MatrixSession {
        MatrixSession(client: client.authenticated(token), book: book, store: store, longPoll: longPoll)
    }

    // MARK: - Account and rooms

    func me() async throws(SyncError) -> UserID {
        let whoami = try await client.whoami()
        await book.setMe(whoami.userID)
        do {
            return try UserID(whoami.userID.rawValue)
        } catch {
            throw .contract("\(MatrixEndpoint.whoami): \(error)")
        }
    }

    /// Every joined room, from one `/sync` that asks for their state and read receipts only.
    func conversations() async throws(SyncError) -> [ServerConversation] {
        let me = try await myUserID()
        let answer = try await client.sync(since: nil, filter: Self.uncached(Self.roomsFilter))
        let states = answer.joined.map(MatrixRoomState.init)
        await book.list(states)
        var conversations: [ServerConversation] = []
        for (room, state) in zip(answer.joined, states) {
            let conversation: ServerConversation
            do {
                conversation = try state.conversation(me: me)
            } catch {
                throw .contract("\(MatrixEndpoint.sync(since: nil, timeoutMilliseconds: 0)): room \(room.id): \(error)")
            }
            await book.receive(Self.receipts(in: room), in: conversation.id)
            // An anchor that does not decode is left to the request that reads it (and says why).
            let anchor = try? MatrixAnchor(in: room.accountData)
            await book.setListed(anchor: anchor, newest: room.timeline.events.last?.eventID, for: conversation.id)
            conversations.append(conversation)
        }
        await book.setInvitations(answer.invited.map { Self.invitation($0, me: me) })
        return conversations
    }

    func invitations() async -> [Invitation] {
        await book.invitations
    }

    /// What an invite's stripped state says: the room's name, and who sent my invite.
    private static func invitation(_ room: MatrixInvitedRoom, me: UserID) -> Invitation {
        var name: String?
        var inviter: String?
        for event in room.inviteState {
            switch event.content {
            case .name(let text) where event.type == "m.room.name": name = text
            case .member(membership: "invite", _) where event.stateKey == me.rawValue:
                inviter = event.sender.rawValue
            default: break
            }
        }
        return Invitation(room: room.id.rawValue, name: name, inviter: inviter)
    }

    /// Joins the room `room` (an ID or an alias) names; the conversation it is.
    func join(_ room: String) async throws(SyncError) -> ConversationID {
        let joined = try await client.join(room)
        return ConversationID.matrixRoom(joined.rawValue)
    }

    /// The room's anchor: as this process met it, else as the account data holds it (read
    /// only: a first catch-up writes one).
    func historyAnchor(_ id: ConversationID) async throws(SyncError) -> Int? {
        if let known = await book.anchors[id] { return known }
        let room = try await room(id)
        let numberer = MatrixRoomNumberer(client: client, user: try await myMatrixID(), room: room)
        guard let anchor = try await numberer.readAnchor() else { return nil }
        await book.setAnchor(anchor.sequence, for: id)
        return anchor.sequence
    }

    /// ``MatrixRoomState/filter`` with the rooms' read receipts (the positions a pass merges)
    /// and their anchors (``MatrixAnchor/type``: no request a room to read them).
    static let roomsFilter =
        #"{"account_data":{"not_types":["*"]},"presence":{"not_types":["*"]},"room":{"account_data":{"types":["org.chatdir.anchor"]},"ephemeral":{"types":["m.receipt"]},"state":{"types":["m.room.name","m.room.canonical_alias","m.room.member","m.room.encryption"]},"timeline":{"limit":1}}}"#

    /// `filter` made unlike any earlier one. Synapse keeps a `/sync` answer for two minutes
    /// (`sync_response_cache_duration`) and gives it again to the same request: a pass run
    /// within that time would see the rooms, members and receipts as they were. Excluding an
    /// event type no one sends changes no answer, only the request.
    static func uncached(_ filter: String) -> String {
        let nonce = "org.chatdir.uncached." + ClientMessageID.random().rawValue
        let timeline = #""timeline":{"#
        let parts = filter.split(separator: timeline, maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return filter }
        return parts[0] + timeline + #""not_types":[""# + nonce + #""],"# + parts[1]
    }

    private static func receipts(in room: MatrixJoinedRoom) -> [MatrixReceipt] {
        room.ephemeral.flatMap { event -> [MatrixReceipt] in
            if case .receipts(let list) = event { return list }
            return []
        }
    }

    private func myUserID() async throws(SyncError) -> UserID {
        if let me = await book.me, let user = try? UserID(me.rawValue) { return user }
        return try await me()
    }

    private func myMatrixID() async throws(SyncError) -> MatrixUserID {
        if let me = await book.me { return me }
        _ = try await me()
        guard let me = await book.me else { throw .contract("\(MatrixEndpoint.whoami): no user ID") }
        return me
    }

    /// The room conversation `id` is: listed by this session, else named by the store's
    /// `conversation.json`.
    private func room(_ id: ConversationID) async throws(SyncError) -> MatrixRoomID {
        if let room = await book.room(id) { return room }
        let info: ConversationInfo?
        do { info = try await store.info(id) } catch { throw .contract("\(id): \(error)") }
        guard let text = info?.roomID, let room = try? MatrixRoomID(text) else {
            throw .rejected(status: 404, message: "\(id) is not a room this account has joined")
        }
        await book.remember(room: room, for: id, encrypted: info?.encrypted == true)
        return room
    }

    // MARK: - Messages

    func messages(_ id: ConversationID, _ page: HistoryPage, limit: Int) async throws(SyncError) -> MessagesPage {
        let room = try await room(id)
        // None of an encrypted room's events is stored: it has no messages here.
        if await book.isEncrypted(id) { return MessagesPage(items: [], hasMore: false) }
        let limit = min(max(limit, 1), MatrixLimits.eventsPerPage)
        switch page {
        case .after(let sequence): return try await forward(id, room, after: sequence, limit: limit)
        case .before(let sequence): return try await backward(id, room, before: sequence, limit: limit)
        case .newest: return try await newest(id, room, limit: limit)
        }
    }

    /// The event numbered `sequence` in `id`: numbered in this process, else the stored record's.
    private func eventID(at sequence: Int, in id: ConversationID) async throws(SyncError) -> MatrixEventID? {
        if let known = await book.eventID(at: sequence, in: id) { return known }
        let stored = try await storedMessage(id, at: sequence)
        guard let text = stored?.eventID?.rawValue, let eventID = try? MatrixEventID(text) else { return nil }
        try await number(id) { numbering throws(MatrixNumberingError) in try numbering.record(sequence, eventID) }
        return eventID
    }

    /// Messages after `sequence`, oldest first. From the token where the last forward page
    /// ended when it ended there (or at the one after `sequence`, which then comes first, as
    /// stored: a catch-up asks one before what it holds); else from `/context` of the event at
    /// `sequence` (or of the one after it); with nothing stored and numbered, from the room's anchor.
    private func forward(_ id: ConversationID, _ room: MatrixRoomID, after sequence: Int, limit: Int)
        async throws(SyncError) -> MessagesPage
    {
        if let page = try await liveTail(id, after: sequence, limit: limit) { return page }
        var items: [MatrixNumberedEvent] = []
        // The event the walk begins after, when it is known: where it ends if it finds nothing.
        var walkStart: MatrixEventID?
        // Events that may redact stored messages: everything the page walked over.
        var redactions: [MatrixEvent] = []
        // The stored message the page starts with, when the page goes on from where the last one
        // ended at it: this process numbered it and paged past it, so no `/context` is asked to
        // show it again (a live wake would wait for one more round trip before its save).
        var shownAgain: Message?
        var from: Book.Cursor
        if let cursor = await book.forwardCursor(id), cursor.sequence == sequence {
            from = cursor
            walkStart = await book.forwardWalked(id)
        } else if let cursor = await book.forwardCursor(id), cursor.sequence == sequence + 1,
            let stored = try await storedMessage(id, at: sequence + 1),
            stored.eventID?.rawValue == cursor.eventID.rawValue
        {
            from = cursor
            walkStart = await book.forwardWalked(id)
            shownAgain = stored
        } else if let eventID = try await eventID(at: sequence, in: id) {
            let context = try await context(room, eventID)
            walkStart = eventID
            redactions += context.eventsAfter
            items = try await number(id) { numbering throws(MatrixNumberingError) in
                try numbering.number(context.eventsAfter, after: sequence, eventID)
            }
            from = try cursor(after: items, sequence, eventID, token: context.end, room, eventID)
        } else if let eventID = try await eventID(at: sequence + 1, in: id) {
            let context = try await context(room, eventID)
            walkStart = eventID
            redactions += context.eventsAfter
            items = [MatrixNumberedEvent(sequence: sequence + 1, event: context.event)]
            items += try await number(id) { numbering throws(MatrixNumberingError) in
                try numbering.number(context.eventsAfter, after: sequence + 1, eventID)
            }
            from = try cursor(after: items, sequence + 1, eventID, token: context.end, room, eventID)
        } else if sequence == 0 {
            // Nothing stored, or nothing when the engine decided where to start: another
            // catch-up (a drain placing its messages in a room started here) may have stored
            // the first messages since, and paging from the anchor again brings them as stored.
            guard let anchor = try await anchor(id, room) else { return MessagesPage(items: [], hasMore: false) }
            let (event, position) = try await positioned(anchor.eventID, numbered: anchor.sequence, in: id, room)
            try await number(id) { numbering throws(MatrixNumberingError) in
                try numbering.record(anchor.sequence, anchor.eventID)
            }
            items = [MatrixNumberedEvent(sequence: anchor.sequence, event: event)]
            from = position
            walkStart = anchor.eventID
            // The newest event when the rooms were listed: nothing to page forward to (what
            // came since, the next catch-up brings from here).
            if await book.listedNewest[id] == anchor.eventID {
                await book.setForward(from, walked: anchor.eventID, for: id)
                return MessagesPage(items: try await records(items, in: id), hasMore: false)
            }
        } else {
            throw .contract(
                "\(id): the store holds no message at sequence \(sequence) or \(sequence + 1) to page \(room) from")
        }
        // Pages until one brings messages (a page of redactions alone is no answer to give the
        // engine: it would say more is there and bring nothing) or the room's end.
        let limit = shownAgain == nil ? limit : max(limit - 1, 1)
        var hasMore = true
        var emptyPages = 0
        while items.count < limit {
            let page = try await client.messages(
                room, from: from.token, direction: .forward, limit: limit - items.count, filter: Self.forwardFilter)
            redactions += page.chunk
            let last = from
            let numbered = try await number(id) { numbering throws(MatrixNumberingError) in
                try numbering.number(page.chunk, after: last.sequence, last.eventID)
            }
            items += numbered
            from = last.advanced(past: numbered, token: page.end)
            if page.end == nil || page.chunk.isEmpty {
                hasMore = false
                break
            }
            if !numbered.isEmpty { break }
            emptyPages += 1
            if emptyPages >= Self.pagesWithoutMessages {
                throw .contract(
                    "\(MatrixEndpoint.messages(room, from: last.token, direction: .forward, limit: limit, filter: Self.forwardFilter)): \(emptyPages) pages in a row brought no message"
                )
            }
        }
        let walked = redactions.last?.eventID ?? walkStart
        await book.setForward(from, walked: walked, for: id)
        if hasMore {
            await book.walkedPart(id)
        } else {
            await book.walked(id, to: walked, mark: MatrixLiveTail.Mark(sequence: from.sequence, eventID: from.eventID))
        }
        try await redact(redactions, in: id)
        let page = (shownAgain.map { [$0] } ?? []) + (try await records(items, in: id))
        return MessagesPage(items: Self.redacting(page, by: redactions), hasMore: hasMore)
    }

    /// Messages after `sequence` from the events the live `/sync` showed since the last forward
    /// walk, when they can be numbered without `/messages` (``MatrixLiveTail``): the catch-up
    /// after a wake then saves without another round trip. As ``forward(_:_:after:limit:)``,
    /// the stored message at `sequence + 1` comes first when asked after the one before it.
    private func liveTail(_ id: ConversationID, after sequence: Int, limit: Int) async throws(SyncError)
        -> MessagesPage?
    {
        guard let mark = await book.liveTailMark(id) else { return nil }
        var shownAgain: Message?
        if mark.sequence == sequence + 1 {
            guard let stored = try await storedMessage(id, at: sequence + 1),
                stored.eventID?.rawValue == mark.eventID.rawValue
            else { return nil }
            shownAgain = stored
        } else if mark.sequence != sequence {
            return nil
        }
        let taken: (numbered: [MatrixNumberedEvent], events: [MatrixEvent])?
        do {
            taken = try await book.takeLiveTail(id, after: mark, limit: shownAgain == nil ? limit : max(limit - 1, 1))
        } catch {
            throw .contract("\(id): the server's history differs from the one numbered: \(error)")
        }
        guard let taken else { return nil }
        try await redact(taken.events, in: id)
        let page = (shownAgain.map { [$0] } ?? []) + (try await records(taken.numbered, in: id))
        return MessagesPage(items: Self.redacting(page, by: taken.events), hasMore: false)
    }

    private func storedMessage(_ id: ConversationID, at sequence: Int) async throws(SyncError) -> Message? {
        do { return try await store.storedMessage(id, sequence: sequence) } catch { throw .contract("\(id): \(error)") }
    }

    /// `messages` with those a redaction among `events` removes as their redacted records. A
    /// homeserver should give a redacted event redacted; an end-to-end test once found such a
    /// message's text stored by a first sync whose page held the redaction too (not reproduced
    /// since). Going forward a redaction is met only once: its message must not keep the text.
    static func redacting(_ messages: [Message], by events: [MatrixEvent]) -> [Message] {
        var redacted = Set<String>()
        for event in events {
            if case .redaction(let target?) = event.content { redacted.insert(target.rawValue) }
        }
        guard !redacted.isEmpty else { return messages }
        return messages.map { message in
            guard let eventID = message.eventID, !message.redacted, redacted.contains(eventID.rawValue),
                let record = message.redactedRecord
            else { return message }
            return record
        }
    }

    /// Forward pages ask for redactions too: they come after what they remove, so a catch-up
    /// from the newest stored message meets every redaction of a message stored before it.
    /// (Numbering counts messages alone, by type, so they change no sequence.)
    static let forwardFilter = #"{"types":["m.room.message","m.room.redaction"]}"#

    /// Forward pages of redactions alone that one request for messages walks at most.
    static let pagesWithoutMessages = 100

    /// Rewrites each stored message that one of `events` redacts as its one redacted record,
    /// the same bytes a device that never saw the original writes. A message this store does
    /// not hold is left alone (it comes redacted when it is fetched).
    private func redact(_ events: [MatrixEvent], in id: ConversationID) async throws(SyncError) {
        for event in events {
            guard case .redaction(let redacts?) = event.content, let target = try? EventID(redacts.rawValue) else {
                continue
            }
            var stored: Message?
            do {
                if let sequence = try await store.sequence(ofEvent: target, in: id) {
                    stored = try await store.storedMessage(id, sequence: sequence)
                }
            } catch {
                throw .contract("\(id): \(error)")
            }
            guard let stored, stored.eventID == target, !stored.redacted, let redacted = stored.redactedRecord else {
                continue
            }
            do {
                try await store.saveFromServer([redacted], in: id, what: "the redaction of \(target)")
            } catch let error as SyncError {
                throw error
            } catch {
                throw .contract("\(id): \(error)")
            }
        }
    }

    /// Messages before `sequence`, returned oldest first: from where the last backward page
    /// ended, else from `/context` of the event at `sequence`. Never below sequence 1.
    private func backward(_ id: ConversationID, _ room: MatrixRoomID, before sequence: Int, limit: Int)
        async throws(SyncError) -> MessagesPage
    {
        guard sequence > 1 else { return MessagesPage(items: [], hasMore: false) }
        var items: [MatrixNumberedEvent] = []
        var from: Book.Cursor
        // The event the first page starts at, when it starts at a message already numbered.
        var skipping: MatrixEventID?
        if let cursor = await book.backwardCursor(id), cursor.sequence == sequence {
            from = cursor
        } else if let eventID = try await eventID(at: sequence, in: id) {
            // From the event's own position (``positioned(_:numbered:in:_:)``): a backward page
            // from there starts with the event, skipped below.
            if let known = await book.position(id), known.sequence == sequence, known.eventID == eventID {
                from = known
            } else {
                from = try await positioned(eventID, numbered: sequence, in: id, room).position
            }
            skipping = eventID
        } else {
            throw .contract("\(id): the store holds no message at sequence \(sequence) to page \(room) back from")
        }
        // Pages until one brings older messages (the first may hold only the event it starts
        // at) or the room's beginning.
        var hasMore = true
        var emptyPages = 0
        while items.count < limit {
            guard from.sequence > 1 else {
                hasMore = false
                break
            }
            let page = try await client.messages(
                room, from: from.token, direction: .backward,
                limit: min(limit - items.count + (skipping == nil ? 0 : 1), from.sequence - 1),
                filter: MatrixNumbering.messagesFilter)
            var chunk = page.chunk
            if let skipped = skipping {
                guard let index = chunk.firstIndex(where: { $0.eventID == skipped }) else {
                    throw .contract(
                        "\(MatrixEndpoint.messages(room, from: from.token, direction: .backward, limit: limit, filter: MatrixNumbering.messagesFilter)): the page back from \(skipped)'s position does not start with it"
                    )
                }
                chunk.removeSubrange(...index)
                skipping = nil
            }
            let last = from
            let numbered = try await number(id) { [chunk] numbering throws(MatrixNumberingError) in
                try numbering.number(chunk, before: last.sequence, last.eventID)
            }
            items += numbered
            from = last.advanced(past: numbered, token: page.end)
            if page.end == nil || page.chunk.isEmpty {
                hasMore = false
                break
            }
            if !numbered.isEmpty {
                hasMore = from.sequence > 1
                break
            }
            emptyPages += 1
            if emptyPages >= Self.pagesWithoutMessages {
                throw .contract("\(room): \(emptyPages) pages back in a row brought no message")
            }
        }
        await book.setBackward(from, for: id)
        return MessagesPage(items: try await records(items.reversed(), in: id), hasMore: hasMore)
    }

    /// With nothing stored: the anchor's message and those before it, oldest first.
    private func newest(_ id: ConversationID, _ room: MatrixRoomID, limit: Int) async throws(SyncError)
        -> MessagesPage
    {
        guard let anchor = try await anchor(id, room) else { return MessagesPage(items: [], hasMore: false) }
        try await number(id) { numbering throws(MatrixNumberingError) in
            try numbering.record(anchor.sequence, anchor.eventID)
        }
        let event = try await positioned(anchor.eventID, numbered: anchor.sequence, in: id, room).event
        let older = try await backward(id, room, before: anchor.sequence, limit: max(limit - 1, 1))
        let first = try await records([MatrixNumberedEvent(sequence: anchor.sequence, event: event)], in: id)
        return MessagesPage(items: older.items + first, hasMore: older.hasMore)
    }

    private typealias Book = MatrixRoomBook

    /// Where the next forward page starts: after the last of `items` (or the event at
    /// `sequence` when there are none), from `token`.
    private func cursor(
        after items: [MatrixNumberedEvent], _ sequence: Int, _ eventID: MatrixEventID, token: String?,
        _ room: MatrixRoomID, _ asked: MatrixEventID
    ) throws(SyncError) -> Book.Cursor {
        guard let token else {
            throw .contract(
                "\(MatrixEndpoint.context(room, asked, limit: Self.contextLimit)): no token to page forward")
        }
        return Book.Cursor(
            sequence: items.last?.sequence ?? sequence, eventID: items.last?.event.eventID ?? eventID, token: token)
    }

    /// The room's anchor: read, else written by this device at the newest message.
    private func anchor(_ id: ConversationID, _ room: MatrixRoomID) async throws(SyncError) -> MatrixAnchor? {
        if let listed = await book.listedAnchors[id] { return listed }
        let numberer = MatrixRoomNumberer(client: client, user: try await myMatrixID(), room: room)
        let anchor = try await numberer.establishAnchor()
        if let anchor { await book.setAnchor(anchor.sequence, for: id) }
        return anchor
    }

    /// Events `/context` gives around the one asked for: Synapse splits them, one before and one after.
    private static let contextLimit = 2

    /// The message `eventID` (numbered `sequence`) and its own position, kept in the book for
    /// the walk the other way: `/context` with no events around it answers it as `end`. Not
    /// `/context`'s `start`: Synapse makes that (depth − 1, stream) of the event, and a backward
    /// page from there leaves out the messages at the event's own depth that came earlier in
    /// the stream (sent at the same moment as it: a forked graph). A forward page from the
    /// position starts after the event, a backward page with it.
    private func positioned(
        _ eventID: MatrixEventID, numbered sequence: Int, in id: ConversationID, _ room: MatrixRoomID
    ) async throws(SyncError) -> (event: MatrixEvent, position: Book.Cursor) {
        let context = try await context(room, eventID, limit: 0)
        guard let end = context.end else {
            throw .contract("\(MatrixEndpoint.context(room, eventID, limit: 0)): no token at \(eventID)'s position")
        }
        let position = Book.Cursor(sequence: sequence, eventID: eventID, token: end)
        await book.setPosition(position, for: id)
        return (context.event, position)
    }

    private func context(_ room: MatrixRoomID, _ eventID: MatrixEventID, limit: Int = contextLimit)
        async throws(SyncError) -> MatrixEventContext
    {
        let context = try await client.context(room, eventID, limit: limit)
        guard context.event.eventID == eventID, MatrixNumbering.counts(context.event) else {
            throw .contract(
                "\(MatrixEndpoint.context(room, eventID, limit: limit)): answered \(context.event.type) \(context.event.eventID) for message \(eventID)"
            )
        }
        return context
    }

    /// Numbers in the book; a disagreement is the server's history differing from what was
    /// numbered or stored: refused like any other.
    @discardableResult
    private func number<T: Sendable>(
        _ id: ConversationID, _ body: @Sendable (inout MatrixNumbering) throws(MatrixNumberingError) -> T
    ) async throws(SyncError) -> T {
        do {
            return try await book.number(id, body)
        } catch {
            throw .contract("\(id): the server's history differs from the one numbered: \(error)")
        }
    }

    /// The records of numbered events, as every device of the account writes them.
    private func records(_ events: [MatrixNumberedEvent], in id: ConversationID) async throws(SyncError)
        -> [Message]
    {
        let me = try await myUserID()
        var messages: [Message] = []
        messages.reserveCapacity(events.count)
        for event in events {
            do {
                messages.append(try Message(matrix: event, me: me))
            } catch {
                throw .contract("\(id): event \(event.event.eventID): \(error)")
            }
        }
        return messages
    }

    // MARK: - Sending and positions

    /// `PUT …/send` with the client message ID as the transaction ID: accepted, placed by the
    /// catch-up that brings the event back.
    func deliver(_ id: ConversationID, clientMessageID: ClientMessageID, text: String) async throws(SyncError)
        -> Delivery
    {
        let room = try await room(id)
        _ = try await client.deliver(room, clientMessageID: clientMessageID, text: text)
        // Nothing stored yet (a room just made here): the anchor is fixed now, before the next
        // message goes, at this one when it is the room's newest. Anchored later, at the newest
        // of several sent, the earlier ones would lie below the anchor, where a catch-up never
        // looks and they would wait in the outbox for ever.
        if try await store.isEmpty(id) { _ = try await anchor(id, room) }
        return .accepted
    }

    /// Every member's read position: the sequence of the message their newest `m.read` receipt
    /// is on, or of the newest message before it when it is on an event that takes no sequence,
    /// when that message is numbered here or stored among the newest records (a receipt on an
    /// older one is not a position this pass can show).
    func positions(_ id: ConversationID) async throws(SyncError) -> Positions {
        var positions: [UserID: MemberPosition] = [:]
        for (user, eventID) in await book.readReceipts(id) {
            guard let member = try? UserID(user.rawValue) else { continue }
            var sequence = try await sequence(of: eventID, in: id)
            if sequence == nil, let message = try await message(atOrBefore: eventID, in: id), message != eventID {
                sequence = try await self.sequence(of: message, in: id)
            }
            guard let sequence else { continue }
            positions[member] = MemberPosition(deliveredUpTo: 0, readUpTo: sequence)
        }
        return Positions(positions)
    }

    /// The newest message at or before `eventID`, for a receipt on an event that takes no
    /// sequence (a reaction, a state event): other clients mark read whatever came last, and
    /// having read it is having read the messages before it. `/context` asking for messages
    /// around it, once per event in this process; nil when there is no message before it.
    private func message(atOrBefore eventID: MatrixEventID, in id: ConversationID) async throws(SyncError)
        -> MatrixEventID?
    {
        if let known = await book.messageBefore(eventID, in: id) { return known }
        let room = try await room(id)
        let context: MatrixEventContext
        do {
            context = try await client.context(room, eventID, limit: 2, filter: MatrixNumbering.messagesFilter)
        } catch {
            // An event the homeserver will not show (not visible to me, unknown): the receipt
            // moves no tick, as before it was looked up; the other members' positions still count.
            if case .rejected = error { return nil }
            throw error
        }
        guard context.event.eventID == eventID else {
            throw .contract(
                "\(MatrixEndpoint.context(room, eventID, limit: 2, filter: MatrixNumbering.messagesFilter)): answered \(context.event.eventID)"
            )
        }
        let message =
            MatrixNumbering.counts(context.event)
            ? eventID : context.eventsBefore.first(where: MatrixNumbering.counts)?.eventID
        if let message { await book.setMessageBefore(message, for: eventID, in: id) }
        return message
    }

    private func sequence(of eventID: MatrixEventID, in id: ConversationID) async throws(SyncError) -> Int? {
        if let known = await book.sequence(of: eventID, in: id) { return known }
        guard let event = try? EventID(eventID.rawValue) else { return nil }
        do {
            return try await store.sequence(ofEvent: event, in: id, newest: 2)
        } catch {
            throw .contract("\(id): \(error)")
        }
    }

    /// `m.read` on the message at `sequence`.
    func postRead(_ id: ConversationID, upTo sequence: Int) async throws(SyncError) -> Int {
        let room = try await room(id)
        guard let eventID = try await eventID(at: sequence, in: id) else {
            throw .rejected(status: 404, message: "\(id): no message is stored at sequence \(sequence) to mark read")
        }
        try await client.receipt(room, event: eventID)
        return sequence
    }

    func postDelivered(_ id: ConversationID, upTo sequence: Int) async throws(SyncError) -> Int {
        throw .rejected(status: 405, message: "Matrix has no delivered receipts")
    }

    /// Typing for 6 s: a chat screen says it again every 3 s while its user types.
    func typing(_ id: ConversationID) async throws(SyncError) {
        let room = try await room(id)
        try await client.typing(room, user: try await myMatrixID(), true, timeoutMilliseconds: 6_000)
    }

    // MARK: - Starting a room

    /// Creates the room a conversation queued here is: `POST /createRoom`, a private chat named
    /// its title inviting every member but me, its `m.room.create` content carrying `key`.
    /// `/createRoom` has no transaction ID, so the account's joined rooms are searched first for
    /// one this account made with `key`: an earlier attempt whose answer was lost. Found, that
    /// room is the creation and no room is made; the members it has not invited yet are invited
    /// now (Synapse makes the room before it sends the invitations, and answers 502 or 403 when
    /// one fails). Returns the room's conversation as the listing writes it.
    func startConversation(_ conversation: NewConversation, key: String) async throws(SyncError)
        -> ServerConversation?
    {
        let me = try await myUserID()
        let myID = try await myMatrixID()
        var invite: [MatrixUserID] = []
        for member in conversation.members where member != me {
            guard let user = try? MatrixUserID(member.rawValue) else {
                throw .rejected(status: 400, message: "\(member) is not a Matrix user ID (refused by this client)")
            }
            invite.append(user)
        }
        if let made = try await room(createdWith: key, by: myID) {
            for user in invite where !made.inRoom.contains(user) { try await client.invite(made.state.roomID, user) }
            return try await self.conversation(of: made.state, me: me)
        }
        let room = try await client.createRoom(name: conversation.title, invite: invite, creationKey: key)
        // What the listing reads of the room now: its name, and me its one joined member (the
        // others are invited).
        var state = MatrixRoomState(roomID: room, events: [])
        state.name = conversation.title
        state.members = [myID]
        return try await self.conversation(of: state, me: me)
    }

    /// The conversation `state` is, remembered as this session's room.
    private func conversation(of state: MatrixRoomState, me: UserID) async throws(SyncError) -> ServerConversation {
        let conversation: ServerConversation
        do {
            conversation = try state.conversation(me: me)
        } catch {
            throw .contract("\(MatrixEndpoint.createRoom): room \(state.roomID): \(error)")
        }
        await book.remember(room: state.roomID, for: conversation.id, encrypted: state.encrypted)
        return conversation
    }

    /// The joined room whose `m.room.create` this account sent with `key`, from one `/sync` that
    /// asks for the rooms' state, creation included; with the users who have joined it or are
    /// invited.
    private func room(createdWith key: String, by me: MatrixUserID) async throws(SyncError)
        -> (state: MatrixRoomState, inRoom: Set<MatrixUserID>)?
    {
        let answer = try await client.sync(since: nil, filter: Self.uncached(Self.creationFilter))
        for room in answer.joined {
            let events = room.state + room.timeline.events
            let made = events.contains { event in
                guard event.type == "m.room.create", event.sender == me,
                    case .create(_, let found?) = event.content
                else { return false }
                return found == key
            }
            guard made else { continue }
            // The state as it is now: a later membership of a user replaces an earlier one.
            var memberships: [String: String] = [:]
            for event in events where event.type == "m.room.member" {
                guard let user = event.stateKey, case .member(let membership, _) = event.content else { continue }
                memberships[user] = membership
            }
            let inRoom = Set(
                memberships.compactMap { user, membership in
                    membership == "join" || membership == "invite" ? try? MatrixUserID(user) : nil
                })
            return (MatrixRoomState(room), inRoom)
        }
        return nil
    }

    /// ``roomsFilter``'s state with `m.room.create`, and no receipts.
    static let creationFilter =
        #"{"account_data":{"not_types":["*"]},"presence":{"not_types":["*"]},"room":{"account_data":{"not_types":["*"]},"ephemeral":{"not_types":["*"]},"state":{"types":["m.room.create","m.room.name","m.room.canonical_alias","m.room.member","m.room.encryption"]},"timeline":{"limit":1}}}"#

    // MARK: - Live

    /// The live `/sync` filter: message and redaction events, typing and receipts; no state,
    /// presence or account data. Events in the federation format, whose depth and
    /// `prev_events` tell when the new ones can be numbered without `/messages`
    /// (``MatrixLiveTail``); up to 50 a room (more, and the catch-up asks `/messages`).
    static let liveFilter = liveFilter(timelineLimit: 50)

    /// The live loop's first `/sync`: only each room's newest event, where the catch-up after
    /// connecting ends.
    static let firstLiveFilter = liveFilter(timelineLimit: 1)

    private static func liveFilter(timelineLimit: Int) -> String {
        #"{"event_format":"federation","account_data":{"not_types":["*"]},"presence":{"not_types":["*"]},"room":{"account_data":{"not_types":["*"]},"ephemeral":{"types":["m.typing","m.receipt"]},"state":{"not_types":["*"]},"timeline":{"limit":"#
            + String(timelineLimit) + #","types":["m.room.message","m.room.redaction"]}}}"#
    }

    /// A long-poll `/sync` loop: the first `/sync` (no token) is the connection being up, then
    /// each answer's rooms: ``LiveUpdate/changed(_:)`` for a room with new messages or receipts
    /// (a room this session did not list announces itself as a conversation), typing as events.
    /// A failed request ends the stream with ``LiveUpdate/disconnected(_:)``.
    func liveUpdates(limit: Int) -> AsyncStream<[LiveUpdate]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [LiveUpdate].self)
        var client = client
        client.passDeadline = nil
        let session = self
        let task = Task {
            do throws(SyncError) {
                let me = try await session.myMatrixID()
                await session.book.forgetLiveTails()
                let first = try await client.sync(since: nil, filter: Self.uncached(Self.firstLiveFilter))
                for room in first.joined {
                    let id = ConversationID.matrixRoom(room.id.rawValue)
                    await session.book.receive(Self.receipts(in: room), in: id)
                    await session.book.receive(room.timeline, in: id)
                }
                if let user = try? UserID(me.rawValue) {
                    await session.book.setInvitations(first.invited.map { Self.invitation($0, me: user) })
                    await session.store.recordInvitations(await session.book.invitations)
                }
                continuation.yield([.connected])
                var since = first.nextBatch
                while !Task.isCancelled {
                    let asked = ContinuousClock.now
                    let answer = try await client.sync(since: since, wait: session.longPoll, filter: Self.liveFilter)
                    since = answer.nextBatch
                    let updates = await session.updates(answer, me: me)
                    // A homeserver answers a long poll early when something happened; one that
                    // answers at once with nothing for us is not let to make this a busy loop.
                    if updates.isEmpty {
                        do { try await Task.sleep(until: asked + Self.emptyAnswerFloor) } catch { break }
                    }
                    var start = 0
                    while start < updates.count {
                        continuation.yield(Array(updates[start..<min(start + max(limit, 1), updates.count)]))
                        start += max(limit, 1)
                    }
                }
            } catch {
                if !Task.isCancelled { continuation.yield([.disconnected(error)]) }
            }
            await session.book.forgetLiveTails()
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// The least time between the starts of two live `/sync`s when the first brought nothing.
    static let emptyAnswerFloor: Duration = .milliseconds(500)

    /// What one live `/sync` answer means for the engine. New invitations, and rooms joined or
    /// left, rewrite `.invitations` at once, so `chatdir list` shows an invitation while the
    /// worker runs.
    private func updates(_ answer: MatrixSync, me: MatrixUserID) async -> [LiveUpdate] {
        let settled = Set((answer.joined.map(\.id) + answer.left.map(\.id)).map(\.rawValue))
        if !answer.invited.isEmpty || !settled.isEmpty, let user = try? UserID(me.rawValue),
            await book.updateInvitations(
                invited: answer.invited.map { Self.invitation($0, me: user) }, joinedOrLeft: settled)
        {
            await store.recordInvitations(await book.invitations)
        }
        var updates: [LiveUpdate] = []
        for room in answer.joined {
            let id = ConversationID.matrixRoom(room.id.rawValue)
            guard await book.knows(room.id) else {
                updates.append(.event(.conversation(id, title: "", members: [])))
                continue
            }
            let receiptsChanged = await book.receive(Self.receipts(in: room), in: id)
            await book.receive(room.timeline, in: id)
            if receiptsChanged || room.timeline.limited || !room.timeline.events.isEmpty {
                updates.append(.changed(id))
            }
            for case .typing(let users) in room.ephemeral {
                for user in users where user != me {
                    guard let member = try? UserID(user.rawValue) else { continue }
                    updates.append(.event(.typing(id, member)))
                }
            }
        }
        return updates
    }
}

extension SyncStore {
    /// Whether conversation `id` holds no message.
    func isEmpty(_ id: ConversationID) throws(SyncError) -> Bool {
        do {
            return try store.conversation(id).segmentRanges().isEmpty
        } catch {
            throw .contract("\(id): \(error)")
        }
    }

    /// The sequence of the record of event `eventID`, newest segments first, if stored; only
    /// among the newest `segments` when given (a lookup that may miss must not read all history).
    func sequence(ofEvent eventID: EventID, in id: ConversationID, newest segments: Int? = nil)
        throws(StoreError) -> Int?
    {
        let conversation = store.conversation(id)
        let ranges = try conversation.segmentRanges()
        for range in ranges.suffix(segments ?? ranges.count).reversed() {
            if let record = try conversation.readSegment(range).last(where: { $0.eventID == eventID }) {
                return record.sequence
            }
        }
        return nil
    }
}
