import ChatDomain
import ChatMatrix
import ChatStore
import ChatWire

/// libFuzzer target for `MatrixDecoder`, the gate between a homeserver and chatdir. The input
/// goes to every entry point; on top of "no crash":
/// - every refusal is one short line;
/// - every identifier accepted (in any answer, or the input as an ID) satisfies the grammar again
///   and is at most 255 bytes; every message body is within its cap;
/// - message content and the anchor, encoded again, decode to the same value;
/// - every event accepted, made a record (`Message(matrix:me:)`), is one a Matrix store's segment
///   reader accepts and reads back as the same message: nothing a homeserver sends is unstorable;
/// - the input as a path segment, percent-encoded, holds only unreserved bytes and `%XX` and
///   decodes back to itself;
/// - the input as a chunked body gives the same body or refusal fed whole or a byte at a time.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMatrixDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    decoding(MatrixDecoder.sync, bytes).map { sync in
        check(sync.joined.count <= MatrixLimits.roomsPerSync, "\(sync.joined.count) joined rooms passed")
        for room in sync.joined {
            expectValid(room.id)
            (room.timeline.events + room.state).forEach(expectValid)
            for case .receipts(let receipts) in room.ephemeral {
                for receipt in receipts {
                    expectValid(receipt.eventID)
                    expectValid(receipt.user)
                }
            }
            for case .typing(let users) in room.ephemeral { users.forEach(expectValid) }
        }
        for room in sync.left { (room.timeline.events + room.state).forEach(expectValid) }
        for room in sync.invited { room.inviteState.forEach { expectValid($0.sender) } }
    }
    decoding(MatrixDecoder.messages, bytes).map { page in
        check(page.chunk.count <= MatrixLimits.eventsPerPage, "a page of \(page.chunk.count) events passed")
        (page.chunk + page.state).forEach(expectValid)
    }
    decoding(MatrixDecoder.context, bytes).map { context in
        ([context.event] + context.eventsBefore + context.eventsAfter + context.state).forEach(expectValid)
    }
    decoding(MatrixDecoder.event, bytes).map(expectValid)
    decoding(MatrixDecoder.messageContent, bytes).map(expectRoundTrip)
    decoding(MatrixDecoder.anchor, bytes).map { anchor in
        expectValid(anchor.eventID)
        check(
            (try? MatrixDecoder.anchor(MatrixEncoder.anchor(anchor))) == anchor,
            "an anchor does not survive a round trip: \(anchor)")
    }
    decoding(MatrixDecoder.login, bytes).map { login in
        expectValid(login.userID)
        check(login.accessToken.utf8.allSatisfy { (0x21...0x7E).contains($0) }, "a token with a space passed")
    }
    decoding(MatrixDecoder.refresh, bytes).map { refresh in
        check(
            ([refresh.accessToken] + (refresh.refreshToken.map { [$0] } ?? [])).allSatisfy { token in
                !token.isEmpty && token.utf8.allSatisfy { (0x21...0x7E).contains($0) }
            }, "a token with a space passed")
        check(
            (refresh.expiresInMilliseconds ?? 1) >= 1, "a lifetime of \(refresh.expiresInMilliseconds ?? 0) ms passed")
    }
    decoding(MatrixDecoder.whoami, bytes).map { expectValid($0.userID) }
    decoding(MatrixDecoder.joinedRooms, bytes).map { $0.forEach(expectValid) }
    decoding(MatrixDecoder.roomID, bytes).map(expectValid)
    decoding(MatrixDecoder.eventID, bytes).map(expectValid)
    _ = decoding(MatrixDecoder.versions, bytes)
    decoding(MatrixDecoder.wellKnown, bytes).map { known in
        check(known.homeserverBaseURL.hasPrefix("http"), "a base URL \(known.homeserverBaseURL) passed")
    }
    decoding(MatrixDecoder.errorBody, bytes).map { error in
        check(
            !(error.message ?? "").contains(where: \.isNewline)
                && (error.message ?? "").count <= MatrixErrorBody.maxMessageLength + 1,
            "an error message is not one short line")
    }

    let text = String(decoding: bytes, as: UTF8.self)
    if let user = try? MatrixUserID(text) { expectValid(user) }
    if let room = try? MatrixRoomID(text) { expectValid(room) }
    if let event = try? MatrixEventID(text) { expectValid(event) }
    if let alias = try? MatrixRoomAlias(text) {
        check(alias.rawValue.utf8.count <= 255 && alias.rawValue.hasPrefix("#"), "an alias \(alias) passed")
    }
    do { _ = try MatrixUserID(text) } catch { expectOneLine(error.description) }

    let encoded = MatrixEndpoint.encode(text)
    check(
        encoded.utf8.allSatisfy { byte in
            switch byte {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x2E, 0x5F, 0x7E, 0x25: true
            default: false
            }
        } && encoded != "." && encoded != "..", "\(encoded) is not one encoded segment")
    check(percentDecoded(encoded) == Array(text.utf8), "\(encoded) does not decode back to the input")

    var whole = ChunkedBodyDecoder(maxBodySize: 1024)
    let wholeResult = Result { () throws(ChunkedBodyDecoder.Failure) in Array(try whole.feed(bytes[...])) }
    var bytewise = ChunkedBodyDecoder(maxBodySize: 1024)
    var bytewiseResult: Result<[UInt8], ChunkedBodyDecoder.Failure> = .success([])
    for (index, byte) in bytes.enumerated() {
        do { _ = try bytewise.feed([byte][...]) } catch {
            bytewiseResult = .failure(error)
            break
        }
        if bytewise.isComplete {
            bytewiseResult = .success(Array(bytes[(index + 1)...]))
            break
        }
    }
    check(whole.isComplete == bytewise.isComplete, "chunked: complete one way, not the other")
    check(wholeResult == bytewiseResult, "chunked: \(wholeResult) fed whole, \(bytewiseResult) a byte at a time")
    check(whole.body == bytewise.body || !whole.isComplete, "chunked: another body fed a byte at a time")
    return 0
}

/// The value `decode` gives, nil when refused; a refusal must be one short line.
private func decoding<T>(
    _ decode: ([UInt8], ContinuousClock.Instant?) throws(MatrixDecodingError) -> T, _ bytes: [UInt8]
) -> T? {
    do { return try decode(bytes, nil) } catch {
        expectOneLine(error.description)
        return nil
    }
}

private func expectOneLine(_ text: String) {
    check(
        !text.contains(where: \.isNewline) && text.count <= MatrixDecodingError.maxDescriptionLength + 1,
        "a refusal is not one short line: \(text)")
}

private func expectValid(_ event: MatrixEvent) {
    expectValid(event.eventID)
    expectValid(event.sender)
    check(event.originServerTimestamp >= 0, "a negative time stamp passed")
    if case .message(let content) = event.content { expectRoundTrip(content) }
    if case .unreadable(let reason) = event.content {
        // The sender's content, read the same from any answer: the reason names a field of it.
        check(reason.hasPrefix("content"), "an unreadable content's reason names no content field: \(reason)")
        check(!reason.contains("\n"), "an unreadable content's reason spans lines")
    }
    if case .redaction(let redacts?) = event.content { expectValid(redacts) }
    expectStorable(event)
}

/// The record of `event` at the numbering's anchor is a valid Matrix record that reads back the same.
private func expectStorable(_ event: MatrixEvent) {
    let numbered = MatrixNumberedEvent(sequence: 1_000_000_000, event: event)
    let message: Message
    do { message = try Message(matrix: numbered, me: fuzzMe) } catch {
        check(false, "an accepted event makes no record: \(error)")
        return
    }
    let bytes = SegmentFile.encode([message])
    let decoded = SegmentFile.decode(
        bytes, path: "fuzz.json", range: SegmentRange(containing: message.sequence, size: 100), protocol: .matrix)
    check(decoded.firstError == nil, "a record the store refuses: \(decoded.firstError.map { "\($0)" } ?? "")")
    check(decoded.messages == [message], "a record that reads back otherwise: \(message)")
}

private let fuzzMe: UserID = {
    guard let me = try? UserID("@alice:example.org") else { preconditionFailure("a valid user ID") }
    return me
}()

private func expectRoundTrip(_ content: MatrixMessageContent) {
    check(content.body.utf8.count <= MatrixLimits.bodyBytes, "a body of \(content.body.utf8.count) bytes passed")
    check(
        (try? MatrixDecoder.messageContent(MatrixEncoder.messageContent(content))) == content,
        "message content does not survive a round trip: \(content)")
}

private func expectValid(_ id: MatrixUserID) {
    check(id.rawValue.utf8.count <= 255 && (try? MatrixUserID(id.rawValue)) == id, "a user ID \(id) passed")
}

private func expectValid(_ id: MatrixRoomID) {
    check(id.rawValue.utf8.count <= 255 && (try? MatrixRoomID(id.rawValue)) == id, "a room ID \(id) passed")
}

private func expectValid(_ id: MatrixEventID) {
    check(id.rawValue.utf8.count <= 255 && (try? MatrixEventID(id.rawValue)) == id, "an event ID \(id) passed")
}

/// `%XX` sequences turned back into bytes.
private func percentDecoded(_ text: String) -> [UInt8] {
    let utf8 = Array(text.utf8)
    var result: [UInt8] = []
    var index = 0
    while index < utf8.count {
        if utf8[index] == 0x25, index + 2 < utf8.count,
            let byte = UInt8(String(decoding: utf8[(index + 1)...(index + 2)], as: UTF8.self), radix: 16)
        {
            result.append(byte)
            index += 3
        } else {
            result.append(utf8[index])
            index += 1
        }
    }
    return result
}

private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("fuzz-matrix invariant broken: \(message())") }
}
