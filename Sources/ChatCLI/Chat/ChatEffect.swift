import ChatDomain

/// What the chat screen's model asks the coordinator to do; the model itself touches no file.
enum ChatEffect: Hashable, Sendable {
    /// Queue this text as a new message (what `chatdir send` does).
    case send(String)
    /// Queue this failed message again, same client message ID (what `chatdir retry` does).
    case retry(ClientMessageID)
    /// Wish the read position forward to this sequence (what `chatdir read --up-to` does).
    case markRead(upTo: Int)
    /// Tell the worker I am typing (the runtime channel's `typing-me`).
    case signalTyping
    /// Read the stored rows just before this sequence and call ``ChatScreenModel/prepend(_:hasOlder:)``.
    case loadOlderStored(before: Int)
    /// Read the stored rows from sequence `from` to just before `before` again and call
    /// ``ChatScreenModel/replaceOlder(_:from:)``: records there changed (a redaction, an edit).
    case reloadOlderStored(from: Int, before: Int)
    /// Ask the sync worker for older pages from the server (the runtime channel's `older-wanted`).
    case wantOlder(before: Int)
    /// Leave the screen and restore the terminal.
    case quit
}
