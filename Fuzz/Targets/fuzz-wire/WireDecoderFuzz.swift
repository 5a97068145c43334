import ChatDomain
import ChatProtocol
import ChatStore
import ChatSync

/// libFuzzer target for `WireDecoder`, the gate between the network and the store. The input
/// goes to every entry point; whatever one accepts must be something the store can hold:
/// - a message, written to a segment by `SegmentFile.encode`, reads back unchanged with no problem;
/// - a page or conversation list, written back as JSON, decodes to the same values;
/// - IDs are valid names, sequences and positions within 0…2^53, an error line has no newline.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    if let page = try? WireDecoder.messagesPage(bytes) {
        page.items.forEach(expectStorable)
        let json = JSONValue.object([("items", .array(page.items.map(messageJSON))), ("hasMore", .bool(page.hasMore))])
        check(
            (try? WireDecoder.messagesPage(JSONWriter.encode(json))) == page,
            "a messages page does not survive a round trip: \(page)")
    }
    if let conversations = try? WireDecoder.conversations(bytes) {
        for conversation in conversations {
            check(conversation.title.count <= 200, "a title of \(conversation.title.count) characters passed")
            check(
                (0...WireDecoder.maxSequence).contains(conversation.lastSequence),
                "lastSequence \(conversation.lastSequence) passed")
        }
        let json = JSONValue.object([
            (
                "items",
                .array(
                    conversations.map { conversation in
                        .object([
                            ("id", .string(conversation.id.rawValue)), ("title", .string(conversation.title)),
                            ("members", .array(conversation.members.map { .string($0.rawValue) })),
                            ("lastSequence", .integer(conversation.lastSequence)),
                        ])
                    })
            )
        ])
        check(
            (try? WireDecoder.conversations(JSONWriter.encode(json))) == conversations,
            "a conversation list does not survive a round trip: \(conversations)")
    }
    if let positions = try? WireDecoder.receipts(bytes) {
        for (_, position) in positions.members {
            check(position.deliveredUpTo >= 0 && position.readUpTo >= 0, "a negative position passed: \(position)")
        }
    }
    if let value = try? WireDecoder.parse(bytes, what: "fuzz"), let message = try? WireDecoder.message(value) {
        expectStorable(message)
    }
    if let event = try? WireDecoder.liveEvent(String(decoding: bytes, as: UTF8.self)),
        case .message(_, let message) = event
    {
        expectStorable(message)
    }
    if let started = try? WireDecoder.startedConversation(bytes) {
        check(started.title.count <= 200, "a started conversation's title of \(started.title.count) characters passed")
    }
    // The server's side of POST /v1/conversations: what it accepts is valid and survives a round trip.
    if let asked = try? WireRequestDecoder.newConversation(bytes) {
        check(NewConversation.problem(withTitle: asked.title) == nil, "a bad title passed: \(asked.title)")
        check(
            !asked.members.isEmpty && asked.members.count <= NewConversation.maxMembers,
            "\(asked.members.count) members passed")
        check(
            (try? WireRequestDecoder.newConversation(WireEncoder.newConversation(asked))) == asked,
            "a new conversation does not survive a round trip: \(asked)")
    }
    if let user = try? WireDecoder.userID(bytes) {
        check(Name.isValid(user.rawValue), "an invalid user ID passed: \(user)")
    }
    let reason = WireDecoder.errorMessage(bytes)
    check(
        !reason.contains(where: \.isNewline) && reason.count <= 300, "an error reason is not one short line: \(reason)")
    return 0
}

private func messageJSON(_ message: Message) -> JSONValue {
    .object([
        ("clientMessageId", .string(message.clientMessageID.rawValue)),
        ("senderId", .string(message.senderID.rawValue)),
        ("sentAt", .string(message.sentAt)), ("sequence", .integer(message.sequence)), ("text", .string(message.text)),
    ])
}

/// A message from the network, stored in a segment, reads back unchanged and without a problem.
private func expectStorable(_ message: Message) {
    let decoded = SegmentFile.decode(SegmentFile.encode([message]), path: "fuzz.json", range: nil)
    check(decoded.problems.isEmpty, "a message the wire decoder accepted makes a bad segment: \(decoded.problems)")
    check(decoded.messages == [message], "a message the wire decoder accepted reads back as \(decoded.messages)")
}

private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("fuzz-wire invariant broken: \(message())") }
}
