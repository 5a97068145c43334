/// A value that breaks a domain rule. Each case's ``description`` is one line a person can act on.
public enum DomainError: Error, Equatable, Sendable, CustomStringConvertible {
    case invalidConversationID(String, reason: String)
    case invalidUserID(String, reason: String)
    case invalidClientMessageID(String)
    case emptyText
    case textTooLong(characters: Int)
    case textTooLarge(bytes: Int)
    case invalidSequence(Int)
    case invalidEventID(String, reason: String)
    case invalidMessageKind(String, reason: String)

    /// The longest message text the wire contract accepts, in characters.
    public static let maxTextCharacters = 4096
    /// The largest message text, in bytes of UTF-8: 64 KiB, what the reference server's request
    /// body cap and a Matrix event's size limit let through. A character may be any number of
    /// bytes (a letter with a thousand combining accents is one), so this bounds what a text can
    /// cost to read, store and send, where the character count does not.
    public static let maxTextBytes = 65_536

    public var description: String {
        switch self {
        case .invalidConversationID(let value, let reason):
            "invalid conversation ID \(quoted(value)): it \(reason) (allowed: letters, digits, '.', '_', '-'; up to 64; starting with a letter or digit)"
        case .invalidUserID(let value, let reason) where value.hasPrefix("@"):
            "invalid user ID \(quoted(value)): \(reason) (a Matrix user ID is @localpart:server, like @alice:example.org, up to 255 bytes)"
        case .invalidUserID(let value, let reason):
            "invalid user ID \(quoted(value)): it \(reason) (allowed: letters, digits, '.', '_', '-'; up to 64; starting with a letter or digit)"
        case .invalidClientMessageID(let value):
            "invalid client message ID \(quoted(value)): expected a UUID like 6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3"
        case .emptyText:
            "the message text is empty or only white space; write something to send"
        case .textTooLong(let characters):
            "the message text is \(characters) characters long; at most \(Self.maxTextCharacters) are allowed"
        case .textTooLarge(let bytes):
            "the message text is \(bytes) bytes of UTF-8; at most \(Self.maxTextBytes) are allowed"
        case .invalidSequence(let value):
            "invalid sequence \(value): sequences start at 1"
        case .invalidEventID(let value, let reason):
            "invalid event ID \(quoted(value)): \(reason) (a Matrix event ID looks like $Rqnc-F-dvnEYJTyHq_iKxU2bZ1CI92-kuZq3a5lr5Zg)"
        case .invalidMessageKind(let value, let reason):
            "invalid message kind \(quoted(value)): it \(reason) (a kind is 1 to \(MessageKind.maxBytes) bytes without control characters, like emote or notice)"
        }
    }
}
