import ChatTestSupport
import Testing

@testable import ChatWire

/// Found by Fuzz/Targets/fuzz-http-response (regression input in
/// Fuzz/corpus/fuzz-http-response/crash-bare-lf-past-limit): a bad line end beyond the head limit
/// gave 400 when the bytes came in one read and 431 when they came a few at a time, because the
/// reader searched past the limit for the end of the head.
@Suite(.ownThreads) struct HTTPHeadLimitTests {
    /// 41 bytes of head without its end, then a bare LF: past a 40-byte limit however it arrives.
    static let headWithBareLineFeedPastLimit = "GET / HTTP/1.1\r\nHost: a\r\nX-Pad: 0123456789ab\n\r\n"

    @Test("a request head past the limit is 431 however its bytes arrive, even with a bare LF after the limit")
    func requestLimitBeforeLineEnds() {
        let outcome = parseRequests(Self.headWithBareLineFeedPastLimit, parser: HTTPRequestParser(maxHeadSize: 40))
        #expect(outcome.error == .headTooLarge(limit: 40))
    }

    @Test("a bare LF within the limit is still a 400")
    func bareLineFeedWithinLimit() {
        let outcome = parseRequests(Self.headWithBareLineFeedPastLimit, parser: HTTPRequestParser(maxHeadSize: 100))
        #expect(outcome.error?.status.code == 400)
    }

    @Test("a response head past the limit fails the same at once and a byte at a time")
    func responseLimitBeforeLineEnds() {
        let bytes = Array("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\n\r\n".utf8)
        func outcome(_ chunks: [[UInt8]]) -> HTTPParseError? {
            var parser = HTTPResponseHeadParser(maxHeadSize: 40)
            for chunk in chunks {
                parser.feed(chunk)
                do { if try parser.parse() != nil { return nil } } catch { return error }
            }
            return nil
        }
        #expect(outcome([bytes]) == .headTooLarge(limit: 40))
        #expect(outcome(bytes.map { [$0] }) == .headTooLarge(limit: 40))
    }
}
