import ChatWire

/// libFuzzer target for `WebSocketConnection`'s receiving side (frame headers, masking,
/// fragments, control frames, close) and its encoder. The first input byte picks the role (bit 0)
/// and a fragment size (the other bits); the rest is the stream received.
/// - Fed at once or a byte at a time, the stream gives the same events and the same error.
/// - Events respect the limits: messages ≤ `maxMessageSize`, control payloads ≤ 125 bytes.
/// - Every message received, sent back by a peer (whole, and cut into fragments with a ping
///   between them), is received as the same event; a close's reply carries the close code back.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocket(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard let control = input.first else { return 0 }
    let role: WebSocketConnection.Role = control & 1 == 0 ? .server : .client
    let fragmentSize = Int(control >> 1) + 1
    let stream = Array(input.dropFirst())

    let whole = receive([stream], role: role)
    let trickle = receive(stream.map { [$0] }, role: role)
    check(
        whole.events == trickle.events, "events differ when fed a byte at a time: \(whole.events) vs \(trickle.events)")
    check(
        whole.error == trickle.error,
        "errors differ when fed a byte at a time: \(String(describing: whole.error)) vs \(String(describing: trickle.error))"
    )

    let peerRole: WebSocketConnection.Role = role == .server ? .client : .server
    let peer = WebSocketConnection(role: peerRole, makeMaskingKey: { WebSocketMaskingKey(0x12, 0x34, 0x56, 0x78) })
    for event in whole.events {
        switch event {
        case .text(let text):
            check(text.utf8.count <= maxMessageSize, "a text message of \(text.utf8.count) bytes passed the limit")
            expectRoundTrip(event, peer.text(text), role: role)
            expectRoundTrip(
                event, fragmented(Array(text.utf8), opcode: .text, size: fragmentSize, peer: peerRole), role: role)
        case .binary(let bytes):
            check(bytes.count <= maxMessageSize, "a binary message of \(bytes.count) bytes passed the limit")
            expectRoundTrip(event, peer.binary(bytes), role: role)
            expectRoundTrip(event, fragmented(bytes, opcode: .binary, size: fragmentSize, peer: peerRole), role: role)
        case .ping(let payload):
            check(payload.count <= 125, "a ping of \(payload.count) bytes was accepted")
            expectRoundTrip(event, peer.ping(payload), role: role)
        case .pong(let payload):
            check(payload.count <= 125, "a pong of \(payload.count) bytes was accepted")
            expectRoundTrip(event, peer.pong(payload), role: role)
        case .close(let code, _, let reply):
            check(reply != nil, "the first close received has no reply")
            // The reply goes to the peer, so the peer's role decodes it.
            let answer = receive([reply ?? []], role: peerRole)
            guard case .close(let echoed, _, _)? = answer.events.first else {
                fatalError("fuzz-websocket invariant broken: the close reply does not decode: \(answer)")
            }
            check(
                echoed == code, "the close reply carries \(String(describing: echoed)), not \(String(describing: code))"
            )
        }
    }
    return 0
}

/// Small, so that the fuzzer reaches 1009 with short inputs.
private let maxMessageSize = 200

private func receive(_ chunks: [[UInt8]], role: WebSocketConnection.Role) -> (
    events: [WebSocketEvent], error: WebSocketProtocolError?
) {
    var connection = WebSocketConnection(
        role: role, maxMessageSize: maxMessageSize, makeMaskingKey: { WebSocketMaskingKey(1, 2, 3, 4) })
    var events: [WebSocketEvent] = []
    do {
        for chunk in chunks {
            connection.feed(chunk)
            while let event = try connection.nextEvent() { events.append(event) }
        }
    } catch {
        return (events, error)
    }
    return (events, nil)
}

/// `payload` as a message cut into frames of `size` bytes, with a ping after the first fragment.
private func fragmented(_ payload: [UInt8], opcode: WebSocketOpcode, size: Int, peer: WebSocketConnection.Role)
    -> [UInt8]
{
    let key: WebSocketMaskingKey? = peer == .client ? WebSocketMaskingKey(0xA0, 0x0B, 0xC0, 0x0D) : nil
    var pieces = stride(from: 0, to: payload.count, by: size).map { Array(payload[$0..<min($0 + size, payload.count)]) }
    if pieces.isEmpty { pieces = [[]] }
    var bytes: [UInt8] = []
    for (index, piece) in pieces.enumerated() {
        let frame = WebSocketFrame(
            fin: index == pieces.count - 1, opcode: index == 0 ? opcode : .continuation, payload: piece)
        bytes += frame.encoded(maskingKey: key)
        if index == 0 { bytes += WebSocketFrame(opcode: .ping, payload: [0x70]).encoded(maskingKey: key) }
    }
    return bytes
}

private func expectRoundTrip(_ event: WebSocketEvent, _ bytes: [UInt8], role: WebSocketConnection.Role) {
    let again = receive([bytes], role: role).events.filter { $0 != .ping([0x70]) || event == .ping([0x70]) }
    check(again == [event], "\(event) sent back by the peer was received as \(again)")
}

private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("fuzz-websocket invariant broken: \(message())") }
}
