import ChatDomain
import Testing

@Suite(.ownThreads) struct ShownMessageTests {
    let alice = try! UserID("@alice:example.org")
    let bob = try! UserID("@bob:example.org")

    func record(
        _ sequence: Int, _ event: String, _ sender: UserID, _ text: String, kind: MessageKind? = nil,
        redacted: Bool = false, replaces: String? = nil
    ) -> Message {
        let eventID = try! EventID(event)
        return Message(
            sequence: sequence, clientMessageID: .derived(fromEventID: eventID), senderID: sender, text: text,
            sentAt: "2026-11-29T10:00:00.000Z", eventID: eventID, kind: kind, redacted: redacted,
            replaces: replaces.map { try! EventID($0) })
    }

    @Test("the newest edit by the sender replaces text and kind; edits make no row of their own")
    func newestEditBySender() {
        let shown = applyingEdits([
            record(1, "$a", bob, "hi"),
            record(2, "$b", bob, "hello", replaces: "$a"),
            record(3, "$c", alice, "plain"),
            record(4, "$d", bob, "waves", kind: .emote, replaces: "$a"),
        ])
        #expect(shown.map(\.message.sequence) == [1, 3])
        #expect(shown[0].message.text == "waves" && shown[0].message.kind == .emote && shown[0].edited)
        #expect(shown[1].message.text == "plain" && !shown[1].edited)
    }

    @Test("ignored: another member's edit, an edit of a redacted message, an edit of an edit, an unknown original")
    func ignoredEdits() {
        let shown = applyingEdits([
            record(1, "$a", bob, "mine"),
            record(2, "$b", alice, "not yours", replaces: "$a"),
            record(3, "$c", bob, "", redacted: true),
            record(4, "$d", bob, "back", replaces: "$c"),
            record(5, "$e", bob, "edit", replaces: "$gone"),
            record(6, "$f", bob, "edit of an edit", replaces: "$e"),
        ])
        #expect(shown.map(\.message.sequence) == [1, 3])
        #expect(shown.map(\.message.text) == ["mine", ""])
        #expect(shown.allSatisfy { !$0.edited })
    }

    @Test("without edits the messages come back as they are")
    func noEdits() {
        let messages = [record(1, "$a", bob, "one"), record(2, "$b", alice, "two")]
        #expect(applyingEdits(messages) == messages.map { ShownMessage(message: $0, edited: false) })
    }

    @Test(
        "what a text screen shows for each kind",
        arguments: [
            ("hi", nil, false, false, "hi"),
            ("hi", nil, false, true, "hi (edited)"),
            ("", nil, true, false, "(message deleted)"),
            ("waves", MessageKind.emote, false, false, "* waves"),
            ("waves", MessageKind.emote, false, true, "* waves (edited)"),
            ("8pm", MessageKind.notice, false, false, "8pm"),
            ("cat.png", MessageKind.image, false, false, "[image] cat.png"),
            ("a.pdf", MessageKind.file, false, false, "[file] a.pdf"),
            ("", MessageKind.audio, false, false, "[audio]"),
            ("clip", MessageKind.video, false, false, "[video] clip"),
            ("here", MessageKind.location, false, false, "[location] here"),
            ("", MessageKind.unreadable, false, false, "(a message chatdir cannot read)"),
            ("Lunch?", try! MessageKind("org.example.poll"), false, false, "[org.example.poll] Lunch?"),
        ] as [(String, MessageKind?, Bool, Bool, String)])
    func shownText(text: String, kind: MessageKind?, redacted: Bool, edited: Bool, expected: String) {
        #expect(TimelineRow.shownText(text, kind: kind, redacted: redacted, edited: edited) == expected)
    }
}
