/// The WebSocket protocol (RFC 6455 §5–7) for one endpoint, without a socket: bytes in, events out,
/// and the bytes to send for each outgoing message.
///
/// ```
/// connection.feed(bytesFromSocket)
/// do {
///     while let event = try connection.nextEvent() {
///         switch event {
///         case .text(let text): handle(text)
///         case .ping(let payload): write(connection.pong(payload))
///         case .close(_, _, let reply): if let reply { write(reply) }; shutDownSocket()
///         case .binary, .pong: break
///         }
///     }
/// } catch {
///     write(connection.close(code: error.closeCode, reason: error.message)); shutDownSocket()
/// }
/// ```
///
/// Received frames are checked before their payload is buffered: masking by role, reserved bits
/// and opcodes, control frame rules, fragment order, the message size (1009) and the number of
/// frames in one message (1008). Fragments are appended to one buffer (no copy of the message
/// so far per fragment), with control frames allowed between them; text is validated as UTF-8 once the
/// whole message has arrived (1007). After the peer's close frame, further bytes are ignored.
public struct WebSocketConnection: Sendable {
    /// Which end of the connection this is; it decides which frames are masked.
    public enum Role: Sendable, Hashable {
        /// Masks every frame it sends and expects unmasked frames.
        case client
        /// Sends unmasked frames and expects masked ones.
        case server
    }

    /// 1 MiB.
    public static let defaultMaxMessageSize = 1024 * 1024
    /// 1,024: a peer sending a message in endless empty fragments is cut off.
    public static let defaultMaxFramesPerMessage = 1024

    public let role: Role
    /// The largest message accepted, in bytes, summed over its fragments.
    public let maxMessageSize: Int
    /// The most frames one message may arrive in; past it, close code 1008.
    public let maxFramesPerMessage: Int
    /// Whether a close frame was sent; after it, nothing more is.
    public private(set) var closeSent = false
    /// Whether the peer's close frame arrived; after it, nothing more is read.
    public private(set) var closeReceived = false

    private let makeMaskingKey: @Sendable () -> WebSocketMaskingKey
    private var queue = ByteQueue()
    /// The first fragments of a message whose last fragment has not arrived.
    private var partialMessage: (opcode: WebSocketOpcode, payload: [UInt8], frames: Int)?
    private var failure: WebSocketProtocolError?

    /// - Parameters:
    ///   - role: which end this is.
    ///   - maxMessageSize: the largest message accepted, in bytes; larger ones fail with 1009.
    ///   - maxFramesPerMessage: the most frames one message may arrive in; more fail with 1008.
    ///   - makeMaskingKey: where a client gets the key for each frame; a fresh random one by
    ///     default. Tests pass a fixed key to get predictable bytes.
    public init(
        role: Role,
        maxMessageSize: Int = defaultMaxMessageSize,
        maxFramesPerMessage: Int = defaultMaxFramesPerMessage,
        makeMaskingKey: @escaping @Sendable () -> WebSocketMaskingKey = WebSocketMaskingKey.random
    ) {
        self.role = role
        self.maxMessageSize = maxMessageSize
        self.maxFramesPerMessage = maxFramesPerMessage
        self.makeMaskingKey = makeMaskingKey
    }

    // MARK: Receiving

    /// Appends bytes read from the socket.
    public mutating func feed(_ bytes: some Sequence<UInt8>) {
        guard !closeReceived else { return }
        queue.append(contentsOf: bytes)
    }

    /// The next complete message or control frame, or nil until more bytes are fed.
    /// - Throws: `WebSocketProtocolError` with the close code to send; every later call
    ///   throws it again.
    public mutating func nextEvent() throws(WebSocketProtocolError) -> WebSocketEvent? {
        if let failure { throw failure }
        do {
            while !closeReceived, let frame = try nextFrame() {
                if let event = try handle(frame) { return event }
            }
            return nil
        } catch {
            failure = error
            throw error
        }
    }

    /// Removes the next whole frame from the queue once its header passed every check.
    private mutating func nextFrame() throws(WebSocketProtocolError) -> WebSocketFrame? {
        guard let header = WebSocketFrameHeader(queue.bytes) else { return nil }
        let opcode = try check(header)
        // `check` bounded the length by `maxMessageSize`, so it fits in an Int.
        let frameLength = header.headerLength + Int(header.payloadLength)
        guard queue.count >= frameLength else { return nil }
        var payload = Array(queue.removeFirst(frameLength).dropFirst(header.headerLength))
        header.maskingKey?.apply(to: &payload)
        return WebSocketFrame(fin: header.fin, opcode: opcode, payload: payload)
    }

    /// Checks a header against the protocol and this connection's state, before its payload.
    private func check(_ header: WebSocketFrameHeader) throws(WebSocketProtocolError) -> WebSocketOpcode {
        guard header.reservedBits == 0 else { throw .reservedBits(header.reservedBits >> 4) }
        guard let opcode = WebSocketOpcode(rawValue: header.rawOpcode) else { throw .reservedOpcode(header.rawOpcode) }
        switch (role, header.maskingKey) {
        case (.server, nil): throw .unmaskedClientFrame()
        case (.client, .some): throw .maskedServerFrame()
        default: break
        }
        if opcode.isControl {
            guard header.fin else { throw .fragmentedControlFrame(opcode) }
            guard header.payloadLength <= 125 else {
                throw .oversizedControlFrame(opcode, length: header.payloadLength)
            }
            return opcode
        }
        switch (opcode, partialMessage) {
        case (.continuation, nil): throw .continuationWithoutMessage()
        case (.text, .some), (.binary, .some): throw .messageInterrupted(by: opcode)
        default: break
        }
        if let partialMessage, partialMessage.frames >= maxFramesPerMessage {
            throw .tooManyFrames(limit: maxFramesPerMessage)
        }
        guard header.payloadLength >> 63 == 0 else { throw .lengthOutOfRange(header.payloadLength) }
        let received = UInt64(partialMessage?.payload.count ?? 0)
        guard header.payloadLength <= UInt64(maxMessageSize) - received else {
            throw .messageTooBig(atLeast: received + header.payloadLength, limit: maxMessageSize)
        }
        return opcode
    }

    /// Turns a checked frame into an event, or keeps it as a fragment and returns nil.
    private mutating func handle(_ frame: WebSocketFrame) throws(WebSocketProtocolError) -> WebSocketEvent? {
        switch frame.opcode {
        case .ping: return .ping(frame.payload)
        case .pong: return .pong(frame.payload)
        case .close: return try receiveClose(frame.payload)
        case .text, .binary, .continuation:
            // Let go of the stored copy first, so the append below grows the one buffer in place.
            var message = partialMessage ?? (frame.opcode, [], 0)
            partialMessage = nil
            message.payload += frame.payload
            message.frames += 1
            guard frame.fin else {
                partialMessage = message
                return nil
            }
            partialMessage = nil
            guard message.opcode == .text else { return .binary(message.payload) }
            guard let text = String(validating: message.payload, as: UTF8.self) else { throw .invalidUTF8InText() }
            return .text(text)
        }
    }

    private mutating func receiveClose(_ payload: [UInt8]) throws(WebSocketProtocolError) -> WebSocketEvent {
        var code: UInt16?
        var reason = ""
        if !payload.isEmpty {
            guard payload.count >= 2 else { throw .oneByteClosePayload() }
            let received = UInt16(payload[0]) << 8 | UInt16(payload[1])
            guard WebSocketCloseCode.isValidOnWire(received) else { throw .invalidCloseCode(received) }
            guard let text = String(validating: payload.dropFirst(2), as: UTF8.self) else {
                throw .invalidUTF8InCloseReason()
            }
            code = received
            reason = text
        }
        closeReceived = true
        let reply = closeSent ? nil : close(code: code ?? WebSocketCloseCode.noStatusReceived)
        return .close(code: code, reason: reason, reply: reply)
    }

    // MARK: Sending

    /// The bytes of a text message; empty once a close frame was sent (RFC 6455 §5.5.1).
    public func text(_ text: String) -> [UInt8] {
        send(WebSocketFrame(opcode: .text, payload: Array(text.utf8)))
    }

    /// The bytes of a binary message; empty once a close frame was sent.
    public func binary(_ bytes: [UInt8]) -> [UInt8] {
        send(WebSocketFrame(opcode: .binary, payload: bytes))
    }

    /// The bytes of a ping carrying the first 125 bytes of `payload`; empty once a close frame was sent.
    public func ping(_ payload: [UInt8] = []) -> [UInt8] {
        send(WebSocketFrame(opcode: .ping, payload: Array(payload.prefix(125))))
    }

    /// The bytes of a pong carrying the first 125 bytes of `payload` (a ping's payload, to answer it);
    /// empty once a close frame was sent.
    public func pong(_ payload: [UInt8]) -> [UInt8] {
        send(WebSocketFrame(opcode: .pong, payload: Array(payload.prefix(125))))
    }

    /// The bytes of a close frame, or empty when one was already sent.
    ///
    /// Codes that must not be sent (1005, 1006, 1015 and other invalid ones) give a close frame
    /// without a code. The reason is cut to the 123 bytes a control frame leaves for it, at a
    /// character boundary. After a close, wait for the peer's close (with a timeout) before
    /// shutting the socket, unless it already arrived.
    public mutating func close(code: UInt16 = WebSocketCloseCode.normalClosure, reason: String = "") -> [UInt8] {
        guard !closeSent else { return [] }
        var payload: [UInt8] = []
        if WebSocketCloseCode.isValidOnWire(code) {
            payload = [UInt8(code >> 8), UInt8(truncatingIfNeeded: code)] + Self.utf8Prefix(of: reason, maxBytes: 123)
        }
        let bytes = send(WebSocketFrame(opcode: .close, payload: payload))
        closeSent = true
        return bytes
    }

    /// The frame as bytes, masked with a fresh key when this is a client.
    private func send(_ frame: WebSocketFrame) -> [UInt8] {
        guard !closeSent else { return [] }
        return frame.encoded(maskingKey: role == .client ? makeMaskingKey() : nil)
    }

    private static func utf8Prefix(of text: String, maxBytes: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        for character in text {
            let encoded = Array(character.utf8)
            guard bytes.count + encoded.count <= maxBytes else { break }
            bytes += encoded
        }
        return bytes
    }
}
