extension TimelineRow {
    /// What a text screen shows for the row: ``text`` itself for plain text (every wire v1 row),
    /// else ``shownText(_:kind:redacted:edited:)``.
    public var shownText: String {
        Self.shownText(text, kind: kind, redacted: redacted, edited: edited)
    }

    /// What a text screen shows for a message: `(message deleted)` when redacted; an emote as
    /// `* text` (the sender is the column beside it, as IRC prints `* bob waves`); a notice as
    /// text; a kind that is more than text as `[image] text`; content chatdir could not read as
    /// `(a message chatdir cannot read)`; and ` (edited)` after an edited message.
    public static func shownText(_ text: String, kind: MessageKind?, redacted: Bool, edited: Bool) -> String {
        if redacted { return "(message deleted)" }
        let body: String
        switch kind {
        case nil, .notice?: body = text
        case .emote?: body = "* " + text
        case .unreadable?: body = "(a message chatdir cannot read)"
        case let other?: body = text.isEmpty ? "[\(other)]" : "[\(other)] " + text
        }
        return edited ? body + " (edited)" : body
    }
}
