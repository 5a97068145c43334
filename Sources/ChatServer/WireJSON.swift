import ChatDomain
import ChatWire

/// The JSON bodies and live events of wire v1, written with the canonical writer (keys sorted,
/// no spaces): the same value gives the same bytes, which keeps tests and `curl` output stable.
enum WireJSON {
    /// `{"clientMessageId":…,"senderId":…,"sentAt":…,"sequence":…,"text":…}`
    static func write(_ message: Message, into writer: inout JSONWriter) {
        writer.raw("{"); writer.key("clientMessageId"); writer.write(message.clientMessageID.rawValue)
        writer.raw(","); writer.key("senderId"); writer.write(message.senderID.rawValue)
        writer.raw(","); writer.key("sentAt"); writer.write(message.sentAt)
        writer.raw(","); writer.key("sequence"); writer.write(message.sequence)
        writer.raw(","); writer.key("text"); writer.write(message.text)
        writer.raw("}")
    }

    static func message(_ message: Message) -> [UInt8] {
        var writer = JSONWriter()
        write(message, into: &writer)
        return writer.bytes
    }

    /// `{"hasMore":…,"items":[…]}`
    static func messagePage(_ items: [Message], hasMore: Bool) -> [UInt8] {
        var writer = JSONWriter(capacity: items.count * 180 + 32)
        writer.raw("{"); writer.key("hasMore"); writer.write(.bool(hasMore))
        writer.raw(","); writer.key("items"); writer.raw("[")
        for (index, message) in items.enumerated() {
            if index > 0 { writer.raw(",") }
            write(message, into: &writer)
        }
        writer.raw("]}")
        return writer.bytes
    }

    /// `{"error":"…"}`
    static func error(_ message: String) -> [UInt8] {
        JSONWriter.encode(.object([("error", .string(message))]))
    }

    /// `{"type":"message","conversationId":…,"message":{…}}`: keys in the order wire-v1.md shows.
    static func messageEvent(_ message: Message, in conversation: ConversationID) -> String {
        var writer = JSONWriter()
        writer.raw("{"); writer.key("type"); writer.write("message")
        writer.raw(","); writer.key("conversationId"); writer.write(conversation.rawValue)
        writer.raw(","); writer.key("message"); write(message, into: &writer)
        writer.raw("}")
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// `{"type":"receipt","conversationId":…,"userId":…,"deliveredUpTo":…,"readUpTo":…}`
    static func receiptEvent(_ position: MemberPosition, of user: UserID, in conversation: ConversationID) -> String {
        var writer = JSONWriter()
        writer.raw("{"); writer.key("type"); writer.write("receipt")
        writer.raw(","); writer.key("conversationId"); writer.write(conversation.rawValue)
        writer.raw(","); writer.key("userId"); writer.write(user.rawValue)
        writer.raw(","); writer.key("deliveredUpTo"); writer.write(position.deliveredUpTo)
        writer.raw(","); writer.key("readUpTo"); writer.write(position.readUpTo)
        writer.raw("}")
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
