/// Checks a message text against the wire contract's limits: 1 to 4,096 characters, at most
/// 64 KiB of UTF-8.
public func validateMessageText(_ text: String) throws(DomainError) {
    if text.isEmpty { throw .emptyText }
    // A character is at least one UTF-8 byte: a text of no more bytes than the limit is within
    // it, and its characters need not be counted (grapheme breaking, for every record read).
    let bytes = text.utf8.count
    if bytes <= DomainError.maxTextCharacters { return }
    if bytes > DomainError.maxTextBytes { throw .textTooLarge(bytes: bytes) }
    let count = text.count
    if count > DomainError.maxTextCharacters { throw .textTooLong(characters: count) }
}

/// Checks a text someone is about to send (`chatdir send`, the reference server's `POST
/// …/messages`): the wire limits, and not only white space (spaces, tabs, line breaks, no-break
/// spaces), which would show as an empty bubble. One rule for the client and the server; texts
/// already stored or received are read with ``validateMessageText(_:)``, so an old store stays valid.
public func validateNewMessageText(_ text: String) throws(DomainError) {
    try validateMessageText(text)
    if text.allSatisfy(\.isWhitespace) { throw .emptyText }
}
