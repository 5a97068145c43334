/// A peer broke RFC 6455: the close code to send it, and what it did wrong.
///
/// On this error send `connection.close(code: error.closeCode, reason: error.message)` and close
/// the socket; the connection cannot continue, since its framing can no longer be trusted.
public struct WebSocketProtocolError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 1002 (protocol error), 1007 (invalid UTF-8), 1008 (too many frames) or 1009 (message too big).
    public let closeCode: UInt16
    /// One line naming the offending frame or value.
    public let message: String

    public var description: String { "WebSocket close \(closeCode): \(message)" }

    init(_ closeCode: UInt16, _ message: String) {
        self.closeCode = closeCode
        self.message = message
    }

    static func reservedBits(_ bits: UInt8) -> Self {
        Self(
            WebSocketCloseCode.protocolError,
            "frame has reserved bits 0x\(String(bits, radix: 16)) set but no extension was negotiated")
    }

    static func reservedOpcode(_ opcode: UInt8) -> Self {
        Self(
            WebSocketCloseCode.protocolError,
            "frame has reserved opcode 0x\(String(opcode, radix: 16, uppercase: true))")
    }

    static func unmaskedClientFrame() -> Self {
        Self(WebSocketCloseCode.protocolError, "client frame is not masked; a client must mask every frame")
    }

    static func maskedServerFrame() -> Self {
        Self(WebSocketCloseCode.protocolError, "server frame is masked; a server must not mask frames")
    }

    static func fragmentedControlFrame(_ opcode: WebSocketOpcode) -> Self {
        Self(WebSocketCloseCode.protocolError, "\(opcode) frame is fragmented; control frames must have FIN set")
    }

    static func oversizedControlFrame(_ opcode: WebSocketOpcode, length: UInt64) -> Self {
        Self(
            WebSocketCloseCode.protocolError,
            "\(opcode) frame carries \(length) bytes; control frames carry at most 125")
    }

    static func continuationWithoutMessage() -> Self {
        Self(WebSocketCloseCode.protocolError, "continuation frame arrived with no fragmented message to continue")
    }

    static func messageInterrupted(by opcode: WebSocketOpcode) -> Self {
        Self(WebSocketCloseCode.protocolError, "\(opcode) frame started a new message before the fragmented one ended")
    }

    static func lengthOutOfRange(_ length: UInt64) -> Self {
        Self(
            WebSocketCloseCode.protocolError,
            "frame declares \(length) bytes; the most significant bit of a 64-bit length must be 0")
    }

    static func messageTooBig(atLeast length: UInt64, limit: Int) -> Self {
        Self(
            WebSocketCloseCode.messageTooBig, "message of at least \(length) bytes exceeds the limit of \(limit) bytes")
    }

    static func tooManyFrames(limit: Int) -> Self {
        Self(
            WebSocketCloseCode.policyViolation,
            "message arrives in more than \(limit) frames; send it in fewer, larger frames")
    }

    static func invalidUTF8InText() -> Self {
        Self(WebSocketCloseCode.invalidPayloadData, "text message is not valid UTF-8")
    }

    static func invalidUTF8InCloseReason() -> Self {
        Self(WebSocketCloseCode.invalidPayloadData, "close reason is not valid UTF-8")
    }

    static func oneByteClosePayload() -> Self {
        Self(WebSocketCloseCode.protocolError, "close frame carries 1 byte; a close code takes 2")
    }

    static func invalidCloseCode(_ code: UInt16) -> Self {
        Self(WebSocketCloseCode.protocolError, "close code \(code) is not allowed on the wire")
    }
}
