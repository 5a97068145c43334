import ChatDomain

/// Values the wire tests encode and decode.
enum WireFixtures {
    static let clientMessageID = "6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3"

    static func message(_ sequence: Int = 7, text: String = "hello \"world\"\n/ünï") throws -> Message {
        Message(
            sequence: sequence, clientMessageID: try ClientMessageID(clientMessageID), senderID: try UserID("alice"),
            text: text, sentAt: "2026-12-01T16:00:00.123Z")
    }

    /// The canonical record of ``message(_:text:)`` with sequence 7.
    static let record =
        #"{"clientMessageId":"6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3","senderId":"alice","sentAt":"2026-12-01T16:00:00.123Z","sequence":7,"text":"hello \"world\"\n/ünï"}"#

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
