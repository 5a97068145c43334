import ChatWire

/// libFuzzer target for `HTTPResponseHeadParser` (the client side of the WebSocket handshake).
/// - Fed at once or a byte at a time, it gives the same head, error and remainder.
/// - A head it accepts, serialized by `HTTPResponse` (which writes HTTP/1.1), parses back to the
///   same status and headers.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPResponseHead(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // A small head limit too, so that short inputs reach 431 (libFuzzer grows inputs slowly).
    let small = parse([bytes], maxHeadSize: 40)
    check(
        small == parse(bytes.map { [$0] }, maxHeadSize: 40),
        "fed a byte at a time the result differs with a 40-byte limit")
    let whole = parse([bytes])
    let trickle = parse(bytes.map { [$0] })
    check(whole == trickle, "fed a byte at a time the result differs: \(whole) vs \(trickle)")

    if case .head(let head, let remainder) = whole {
        check(head.status.code >= 100 && head.status.code <= 999, "status code \(head.status.code) is not three digits")
        check(
            bytes.count >= remainder.count && bytes.suffix(remainder.count).elementsEqual(remainder),
            "the remainder is not the input's tail")
        let bodiless = (100..<200).contains(head.status.code) || head.status.code == 204
        var headers = head.headers
        headers.remove(name: "Content-Length")
        let written: [UInt8]
        do { written = try HTTPResponse(status: head.status, headers: headers).serialized() } catch {
            fatalError(
                "fuzz-http-response invariant broken: a head it accepted cannot be serialized: \(head): \(error)")
        }
        let again = parse([written], maxHeadSize: 4096)
        guard case .head(let copy, let rest) = again else {
            fatalError(
                "fuzz-http-response invariant broken: a head it accepted does not parse back: \(head) gave \(again)")
        }
        check(rest.isEmpty, "bytes left after a serialized bodiless head: \(rest)")
        check(copy.status == head.status, "status changed: \(head.status) vs \(copy.status)")
        var copyHeaders = copy.headers
        if !bodiless { copyHeaders.remove(name: "Content-Length") }
        check(copyHeaders == headers, "headers changed: \(headers) vs \(copyHeaders)")
    }
    return 0
}

private enum Outcome: Equatable, CustomStringConvertible {
    case incomplete
    case head(HTTPResponseHead, remainder: [UInt8])
    case failure(HTTPParseError)

    var description: String {
        switch self {
        case .incomplete: "incomplete"
        case .head(let head, let remainder): "head \(head) + \(remainder.count) bytes"
        case .failure(let error): "error \(error)"
        }
    }
}

/// Feeds the chunks until a head or an error; bytes fed after the head count as remainder.
private func parse(_ chunks: [[UInt8]], maxHeadSize: Int = 512) -> Outcome {
    var parser = HTTPResponseHeadParser(maxHeadSize: maxHeadSize)
    for (index, chunk) in chunks.enumerated() {
        parser.feed(chunk)
        do {
            if let (head, remainder) = try parser.parse() {
                return .head(head, remainder: remainder + chunks[(index + 1)...].joined())
            }
        } catch {
            return .failure(error)
        }
    }
    return .incomplete
}

private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("fuzz-http-response invariant broken: \(message())") }
}
