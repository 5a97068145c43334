/// A stored message as a timeline shows it: with its newest edit applied, if any.
public struct ShownMessage: Hashable, Sendable {
    /// The record, its `text` and `kind` those of the newest edit when ``edited``.
    public var message: Message
    /// Whether an edit's text replaced the record's own.
    public var edited: Bool

    public init(message: Message, edited: Bool) {
        self.message = message
        self.edited = edited
    }
}

/// The messages of `sorted` (ascending by sequence) as rows show them, in the same order.
///
/// An edit (a record with `replaces`, Matrix stores only) is no row of its own: the message it
/// edits takes the text and kind of its newest edit (highest sequence) by the message's own
/// sender; an edit by anyone else is ignored, as the Matrix specification says, and so is an
/// edit of a redacted message (it stays deleted) or of another edit. Only the originals among
/// `sorted` can be edited: an edit whose original is not among them (older history not fetched,
/// or older than the page read) shows nothing, since there is nothing stored to show it on.
/// A wire v1 store has no edits, and its messages come back as they are.
public func applyingEdits(_ sorted: [Message]) -> [ShownMessage] {
    guard sorted.contains(where: { $0.replaces != nil }) else {
        return sorted.map { ShownMessage(message: $0, edited: false) }
    }
    var originals: [EventID: Int] = [:]
    for (index, message) in sorted.enumerated() where message.replaces == nil {
        if let eventID = message.eventID { originals[eventID] = index }
    }
    // Ascending order, so a later edit of the same message overwrites an earlier one.
    var newest: [Int: Message] = [:]
    for edit in sorted {
        guard let target = edit.replaces, let index = originals[target] else { continue }
        let original = sorted[index]
        guard !original.redacted, original.senderID == edit.senderID else { continue }
        newest[index] = edit
    }
    var shown: [ShownMessage] = []
    shown.reserveCapacity(sorted.count)
    for (index, message) in sorted.enumerated() where message.replaces == nil {
        guard let edit = newest[index] else {
            shown.append(ShownMessage(message: message, edited: false))
            continue
        }
        var edited = message
        edited.text = edit.text
        edited.kind = edit.kind
        shown.append(ShownMessage(message: edited, edited: true))
    }
    return shown
}
