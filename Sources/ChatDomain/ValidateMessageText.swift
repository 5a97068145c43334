/// Checks a message text against the wire contract's limits.
public func validateMessageText(_ text: String) throws(DomainError) {
    if text.isEmpty { throw .emptyText }
    let count = text.count
    if count > DomainError.maxTextCharacters { throw .textTooLong(characters: count) }
}
