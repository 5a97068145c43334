import ChatProtocol
import Testing

@testable import ChatSync

/// The sync's reading of ChatProtocol's refusals: the words and the retry rule users saw before
/// the decoder moved below ChatSync.
@Suite struct WireDecodingTests {
    @Test("an answer that breaks the contract is a contract violation: nothing stored, not retried")
    func contract() {
        let error = SyncError(WireDecodingError.contract(#"the messages page: "hasMore" must be true or false"#))
        #expect(error == .contract(#"the messages page: "hasMore" must be true or false"#))
        #expect(
            error.description
                == #"the server broke the wire contract: the messages page: "hasMore" must be true or false; nothing from that answer was stored"#
        )
        #expect(!error.isTemporary)
    }

    @Test("a decode that outlasts the request's deadline is temporary, like a slow answer")
    func deadline() {
        let error = SyncError(WireDecodingError.deadlinePassed(what: "the messages page", byteCount: 8_388_608))
        #expect(
            error
                == .temporary(
                    "decoding the messages page (8388608 bytes) did not finish within the request deadline",
                    retryAfter: nil))
        #expect(error.isTemporary)
    }

    @Test("a live frame is decoded through the same mapping")
    func liveFrame() {
        #expect(throws: SyncError.contract(#"a message event has no "message""#)) {
            try SyncError.decoding(WireDecoder.liveEvent, #"{"type":"message","conversationId":"c1"}"#)
        }
    }
}
