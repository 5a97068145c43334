import ChatTestSupport
import Testing

@testable import ChatWire

/// A message split into many frames: reassembled into one buffer, with a cap on the frames so
/// a peer cannot keep a connection busy with endless empty fragments.
@Suite(.ownThreads) struct WebSocketFragmentTests {
    /// `count` frames of `size` bytes each making one binary message, as a server sends them.
    static func fragments(_ count: Int, size: Int) -> (bytes: [UInt8], payload: [UInt8]) {
        var bytes: [UInt8] = []
        var payload: [UInt8] = []
        for index in 0..<count {
            let part = [UInt8](repeating: UInt8(truncatingIfNeeded: index), count: size)
            payload += part
            bytes += WebSocketFrame(
                fin: index == count - 1, opcode: index == 0 ? .binary : .continuation, payload: part
            ).encoded(maskingKey: nil)
        }
        return (bytes, payload)
    }

    @Test("a message in 1,024 fragments comes through whole")
    func manyFragments() throws {
        let (bytes, payload) = Self.fragments(1024, size: 100)
        var connection = WebSocketConnection(role: .client)
        connection.feed(bytes)
        #expect(try connection.nextEvent() == .binary(payload))
        #expect(try connection.nextEvent() == nil)
    }

    @Test("a message in more than 1,024 frames fails with 1008, before its last frame arrives")
    func tooManyFragments() {
        let (bytes, _) = Self.fragments(5000, size: 0)
        var connection = WebSocketConnection(role: .client)
        connection.feed(bytes)
        do {
            while try connection.nextEvent() != nil {}
            Issue.record("5,000 frames for one message were accepted")
        } catch {
            #expect(error.closeCode == WebSocketCloseCode.policyViolation)
            #expect(error.message == "message arrives in more than 1024 frames; send it in fewer, larger frames")
        }
    }

    @Test("fragments whose total passes the size limit fail with 1009")
    func fragmentsTooBig() {
        let (bytes, _) = Self.fragments(20, size: 100)
        var connection = WebSocketConnection(role: .client, maxMessageSize: 1000)
        connection.feed(bytes)
        do {
            while try connection.nextEvent() != nil {}
            Issue.record("2,000 bytes were accepted over a 1,000-byte limit")
        } catch {
            #expect(error.closeCode == WebSocketCloseCode.messageTooBig)
        }
    }
}
