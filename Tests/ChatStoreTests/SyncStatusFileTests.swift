import ChatDomain
import Testing

@testable import ChatStore

@Suite struct SyncStatusFileTests {
    @Test("what the worker writes reads back the same, one line of canonical JSON")
    func roundTrip() throws {
        var status = SyncStatus(pid: 4242, mode: .live, startedAt: 1_764_629_990_000, connection: .reconnecting)
        status.updatedAt = 1_764_630_001_000
        status.problem = "connect 127.0.0.1:9: Connection refused"
        status.reconnects = [1_764_630_000_000]
        status.caughtUp = [c1: 1_764_630_000_500, try ConversationID("a-b"): 1_764_630_000_400]
        status.sendToSent = [180, 95]
        let bytes = SyncStatusFile.encode(status)
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == #"{"caughtUp":{"a-b":1764630000400,"c1":1764630000500},"connection":"reconnecting","mode":"live","pid":4242,"problem":"connect 127.0.0.1:9: Connection refused","reconnects":[1764630000000],"sendToSentMs":[180,95],"startedAt":1764629990000,"updatedAt":1764630001000}"#
                + "\n")
        #expect(try SyncStatusFile.decode(bytes).get() == status)
    }

    static let garbage: [(String, String)] = [
        ("", "end of input"),
        ("[]", "not a JSON object"),
        (#"{"pid":0}"#, #""pid" is an integer, expected a process ID"#),
        (#"{"pid":7,"mode":"dream"}"#, #""mode" is a string, expected "live" or "pass""#),
        (
            #"{"caughtUp":{"../x":1},"connection":"connected","mode":"live","pid":7,"reconnects":[],"sendToSentMs":[],"startedAt":1,"updatedAt":1}"#,
            #""caughtUp" holds "../x""#
        ),
        (
            #"{"caughtUp":{},"connection":"connected","mode":"live","pid":7,"reconnects":[],"sendToSentMs":[-5],"startedAt":1,"updatedAt":1}"#,
            #""sendToSentMs" is an array"#
        ),
    ]

    @Test("a file that is not the worker's is refused with the reason, never trusted", arguments: garbage)
    func refusesGarbage(_ text: String, _ reason: String) {
        switch SyncStatusFile.decode(Array(text.utf8)) {
        case .success: Issue.record("read \(text)")
        case .failure(let error):
            #expect(error.description.contains(reason), "\(error)")
            #expect(error.description.hasPrefix(".sync-status: "))
        }
    }
}

@Suite struct SyncStatusStoppedTests {
    @Test("the next try and the stopped conversations read back; a file without them (an older worker's) reads as none")
    func stoppedAndNextTry() throws {
        var status = SyncStatus(pid: 7, mode: .live, startedAt: 1, connection: .reconnecting)
        status.nextTryAt = 5_000
        status.stoppedConversations = [
            try ConversationID("dinner"): "conversations/dinner/messages/0000000001-0000000100.json:3: not valid JSON"
        ]
        let bytes = SyncStatusFile.encode(status)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#""nextTryAt":5000"#), "\(text)")
        #expect(
            text.contains(
                #""stoppedConversations":{"dinner":"conversations/dinner/messages/0000000001-0000000100.json:3: not valid JSON"}"#
            ), "\(text)")
        #expect(try SyncStatusFile.decode(bytes).get() == status)
        let older =
            #"{"caughtUp":{},"connection":"connected","mode":"live","pid":7,"reconnects":[],"sendToSentMs":[],"startedAt":1,"updatedAt":1}"#
        let read = try SyncStatusFile.decode(Array(older.utf8)).get()
        #expect(read.nextTryAt == nil && read.stoppedConversations.isEmpty)
        let bad =
            #"{"caughtUp":{},"connection":"connected","mode":"live","pid":7,"reconnects":[],"sendToSentMs":[],"startedAt":1,"stoppedConversations":{"dinner":3},"updatedAt":1}"#
        #expect(throws: SyncStatusError.self) { try SyncStatusFile.decode(Array(bad.utf8)).get() }
    }
}
