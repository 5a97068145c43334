/// What a Matrix message is when it is not plain text: a record's `kind`. Absent for `m.text`;
/// the `m.` msgtypes chatdir names without their prefix; any other msgtype as the event gave it;
/// ``unreadable`` for content chatdir could not read.
public struct MessageKind: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// The longest kind, in bytes: a msgtype is a Matrix type name, capped as event types are.
    public static let maxBytes = 255

    public static let emote = MessageKind(unchecked: "emote")
    public static let notice = MessageKind(unchecked: "notice")
    public static let image = MessageKind(unchecked: "image")
    public static let file = MessageKind(unchecked: "file")
    public static let audio = MessageKind(unchecked: "audio")
    public static let video = MessageKind(unchecked: "video")
    public static let location = MessageKind(unchecked: "location")
    /// An event whose content chatdir could not read; its record's text is empty.
    public static let unreadable = MessageKind(unchecked: "unreadable")

    /// Validates `rawValue`: 1 to 255 bytes, no control character (a kind is printed as it is);
    /// throws ``DomainError/invalidMessageKind(_:reason:)``.
    public init(_ rawValue: String) throws(DomainError) {
        let bytes = rawValue.utf8.count
        guard bytes >= 1 else { throw .invalidMessageKind(rawValue, reason: "is empty") }
        guard bytes <= Self.maxBytes else {
            throw .invalidMessageKind(rawValue, reason: "is \(bytes) bytes long, more than \(Self.maxBytes)")
        }
        guard !rawValue.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw .invalidMessageKind(rawValue, reason: "holds a control character")
        }
        self.rawValue = rawValue
    }

    private init(unchecked rawValue: String) { self.rawValue = rawValue }

    /// The kind of a message with `msgtype`: nil for `m.text`, the name without `m.` for the
    /// msgtypes chatdir knows, any other as given. Throws for a msgtype no record can hold.
    public static func of(msgtype: String) throws(DomainError) -> MessageKind? {
        switch msgtype {
        case "m.text": nil
        case "m.emote": .emote
        case "m.notice": .notice
        case "m.image": .image
        case "m.file": .file
        case "m.audio": .audio
        case "m.video": .video
        case "m.location": .location
        default: try MessageKind(msgtype)
        }
    }

    public var description: String { rawValue }
}
