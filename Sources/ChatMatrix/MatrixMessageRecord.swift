import ChatDomain

extension Message {
    /// The record of a numbered `m.room.message` event, the same on every device of `me`'s
    /// account: everything in it comes from the event as the homeserver serves it to every
    /// device (event ID, sender, server time stamp, content), nothing from the device.
    ///
    /// - A redacted event (empty content, or `redacted_because`) is the one redacted record:
    ///   empty text, no kind, no edit, the derived client message ID: what a device that saw the
    ///   original writes once it learns of the redaction.
    /// - Content chatdir cannot read (or a msgtype that is no kind) is kind `unreadable` with
    ///   empty text.
    /// - An edit (`m.replace`) carries the edited event's ID and the new text (`m.new_content`,
    ///   falling back to the body as the specification says).
    /// - The client message ID is the one my content carried (`org.chatdir.cmid`) when I am the
    ///   sender; anyone else's comes from the event ID, so a member cannot claim one of my IDs.
    /// - The time stamp outside 1970…9999 is clamped into it: a lying clock cannot make a
    ///   record unwritable.
    public init(matrix numbered: MatrixNumberedEvent, me: UserID) throws(DomainError) {
        let event = numbered.event
        let eventID = try EventID(event.eventID.rawValue)
        let sender = try UserID(event.sender.rawValue)
        let derived = ClientMessageID.derived(fromEventID: eventID)
        let sentAt = MatrixTimestamp.sentAt(milliseconds: Self.clamped(event.originServerTimestamp)) ?? ""
        func record(_ clientMessageID: ClientMessageID, text: String, kind: MessageKind?, replaces: EventID? = nil)
            -> Message
        {
            Message(
                sequence: numbered.sequence, clientMessageID: clientMessageID, senderID: sender, text: text,
                sentAt: sentAt, eventID: eventID, kind: kind, replaces: replaces)
        }
        let redacted = Message.redacted(eventID: eventID, sequence: numbered.sequence, senderID: sender, sentAt: sentAt)
        if event.isRedacted {
            self = redacted
            return
        }
        switch event.content {
        case .message(let content):
            let edit = content.replaces
            let msgtype = edit.flatMap { _ in content.newContent?.msgtype } ?? content.msgtype
            let text = edit.flatMap { _ in content.newContent?.body } ?? content.body
            let kind: MessageKind?
            do { kind = try MessageKind.of(msgtype: msgtype) } catch {
                self = record(derived, text: "", kind: .unreadable)
                return
            }
            let mine = sender == me ? content.clientMessageID : nil
            self = record(
                mine ?? derived, text: text, kind: kind,
                replaces: try edit.map { id throws(DomainError) in
                    try EventID(id.rawValue)
                })
        case .redacted:
            self = redacted
        case .unreadable, .redaction, .create, .name, .canonicalAlias, .member, .encryption, .other:
            self = record(derived, text: "", kind: .unreadable)
        }
    }

    /// `milliseconds` within what a record's `sentAt` can say (1970 to the end of 9999).
    static func clamped(_ milliseconds: Int) -> Int64 {
        min(max(Int64(milliseconds), 0), MatrixTimestamp.latest)
    }
}
