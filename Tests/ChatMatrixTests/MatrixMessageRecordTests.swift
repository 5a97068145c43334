import ChatDomain
import ChatMatrix
import Testing

/// A numbered event becomes the one record every device of the account writes.
@Suite struct MatrixMessageRecordTests {
    static let me = try! UserID("@alice:example.org")
    static let eventID = try! MatrixEventID("$Vvz9Zp2hY3sUaX1bQ4kWcEo7rT8yLmN0pJfHgDdSaKc")
    static let alice = try! MatrixUserID("@alice:example.org")
    static let bob = try! MatrixUserID("@bob:example.org")
    static let cmid = try! ClientMessageID("6F1C2B3A-4D5E-4F60-8A7B-9C0D1E2F3A4B")

    static func event(
        from sender: MatrixUserID = bob, _ content: MatrixEventContent, at timestamp: Int = 1_796_292_000_000,
        redacted: Bool = false
    ) -> MatrixNumberedEvent {
        MatrixNumberedEvent(
            sequence: 1_000_000_007,
            event: MatrixEvent(
                type: "m.room.message", eventID: eventID, sender: sender, originServerTimestamp: timestamp,
                content: content, isRedacted: redacted))
    }

    static func line(_ message: Message) -> String {
        var writer = JSONWriter()
        message.writeRecord(into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test("another member's text: the derived client message ID, the server's time in UTC, no kind")
    func othersText() throws {
        let message = try Message(matrix: Self.event(.message(MatrixMessageContent(body: "On my way"))), me: Self.me)
        let derived = ClientMessageID.derived(fromEventID: try EventID(Self.eventID.rawValue))
        #expect(
            Self.line(message)
                == #"{"clientMessageId":"\#(derived)","eventId":"\#(Self.eventID)","senderId":"@bob:example.org","sentAt":"2026-12-03T10:00:00.000Z","sequence":1000000007,"text":"On my way"}"#
        )
    }

    @Test("my message keeps the ID its content carried; another member claiming it gets the derived one")
    func clientMessageIDs() throws {
        let content = MatrixEventContent.message(MatrixMessageContent(body: "hi", clientMessageID: Self.cmid))
        let mine = try Message(matrix: Self.event(from: Self.alice, content), me: Self.me)
        #expect(mine.clientMessageID == Self.cmid)
        let claimed = try Message(matrix: Self.event(from: Self.bob, content), me: Self.me)
        #expect(claimed.clientMessageID == ClientMessageID.derived(fromEventID: try EventID(Self.eventID.rawValue)))
    }

    @Test("msgtypes become kinds: emote, notice, image, and another as named")
    func kinds() throws {
        for (msgtype, kind) in [
            ("m.emote", "emote"), ("m.notice", "notice"), ("m.image", "image"), ("org.x.poll", "org.x.poll"),
        ] {
            let message = try Message(
                matrix: Self.event(.message(MatrixMessageContent(msgtype: msgtype, body: "b"))), me: Self.me)
            #expect(message.kind?.rawValue == kind, "\(msgtype)")
            #expect(message.text == "b")
        }
    }

    @Test("an edit carries the edited event and the new text and kind")
    func edit() throws {
        let original = try MatrixEventID("$original")
        let content = MatrixMessageContent(
            body: "* Friday", relation: .replacing(original),
            newContent: MatrixNewContent(msgtype: "m.notice", body: "Friday"))
        let message = try Message(matrix: Self.event(.message(content)), me: Self.me)
        #expect(message.replaces?.rawValue == "$original")
        #expect(message.text == "Friday")
        #expect(message.kind == .notice)
        let withoutNewContent = try Message(
            matrix: Self.event(.message(MatrixMessageContent(body: "* Friday", relation: .replacing(original)))),
            me: Self.me)
        #expect(withoutNewContent.text == "* Friday", "falls back to the body")
    }

    @Test("redacted: one record, whether the content is gone or only redacted_because says so, mine or not")
    func redacted() throws {
        let records = try [
            Message(matrix: Self.event(.redacted), me: Self.me),
            Message(matrix: Self.event(.message(MatrixMessageContent(body: "secret")), redacted: true), me: Self.me),
            Message(
                matrix: Self.event(
                    from: Self.alice, .message(MatrixMessageContent(body: "secret", clientMessageID: Self.cmid)),
                    redacted: true), me: Self.me),
        ]
        #expect(records[0] == records[1])
        #expect(records[0].redacted && records[0].text.isEmpty && records[0].kind == nil)
        #expect(records[2].clientMessageID == records[0].clientMessageID, "a redacted record never keeps my ID")
        #expect(!Self.line(records[2]).contains("secret"))
    }

    @Test("unreadable content is kind unreadable with no text")
    func unreadable() throws {
        let message = try Message(matrix: Self.event(.unreadable(reason: "content.body: not a string")), me: Self.me)
        #expect(message.kind == .unreadable)
        #expect(message.text.isEmpty)
        #expect(!message.redacted)
    }

    @Test("a time stamp before 1970 or after 9999 is clamped, never unwritable")
    func clampedTime() throws {
        let early = try Message(matrix: Self.event(.message(MatrixMessageContent(body: "x")), at: -5), me: Self.me)
        #expect(early.sentAt == "1970-01-01T00:00:00.000Z")
        let late = try Message(matrix: Self.event(.message(MatrixMessageContent(body: "x")), at: .max), me: Self.me)
        #expect(late.sentAt == "9999-12-31T23:59:59.999Z")
    }
}
