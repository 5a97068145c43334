import ChatDomain
import ChatMatrix
import Testing

@testable import ChatSync

/// A catch-up page whose messages include one its own redaction removes stores that message
/// redacted, whatever text the homeserver served for it.
@Suite struct MatrixRedactingTests {
    func event(_ json: String) throws -> MatrixEvent { try MatrixDecoder.event(Array(json.utf8)) }

    func message(_ sequence: Int, _ eventID: String, _ text: String) throws -> Message {
        Message(
            sequence: sequence, clientMessageID: .derived(fromEventID: try EventID(eventID)),
            senderID: try UserID("@bob:example.org"), text: text, sentAt: "2026-12-06T10:00:00.000Z",
            eventID: try EventID(eventID))
    }

    @Test("a message redacted within the page becomes its one redacted record; the others stay")
    func redactedWithinThePage() throws {
        let secret = try message(5, "$secret", "the door code is 4711")
        let hello = try message(4, "$hello", "hello")
        let redaction = try event(
            #"{"type":"m.room.redaction","event_id":"$r","sender":"@bob:example.org","origin_server_ts":2,"redacts":"$secret","content":{"redacts":"$secret"}}"#
        )
        let page = MatrixSession.redacting([hello, secret], by: [redaction])
        #expect(page == [hello, try #require(secret.redactedRecord)])
        #expect(!page.contains { $0.text.contains("4711") })
    }

    @Test("without a redaction, or with one of a message not in the page, nothing changes")
    func nothingToRedact() throws {
        let hello = try message(4, "$hello", "hello")
        let elsewhere = try event(
            #"{"type":"m.room.redaction","event_id":"$r","sender":"@bob:example.org","origin_server_ts":2,"redacts":"$old","content":{"redacts":"$old"}}"#
        )
        #expect(MatrixSession.redacting([hello], by: []) == [hello])
        #expect(MatrixSession.redacting([hello], by: [elsewhere]) == [hello])
    }
}
