import ChatWire

/// libFuzzer target for `HTTPRequestParser`: no crash on any bytes, and two invariants.
/// - Feeding the input at once or a byte at a time gives the same requests and the same error
///   (the server reads whatever chunks the socket returns).
/// - Every request parsed, serialized again, parses back to itself (Content-Length aside: the
///   serializer writes its own).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPRequest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // A small head limit too, so that short inputs reach 431 (libFuzzer grows inputs slowly).
    for maxHeadSize in [48, 512] {
        let whole = parseAll([bytes], maxHeadSize: maxHeadSize)
        let trickle = parseAll(bytes.map { [$0] }, maxHeadSize: maxHeadSize)
        check(
            whole.requests == trickle.requests,
            "requests differ when fed a byte at a time: \(whole.requests) vs \(trickle.requests)")
        check(
            whole.error == trickle.error,
            "errors differ when fed a byte at a time: \(String(describing: whole.error)) vs \(String(describing: trickle.error))"
        )
    }
    let whole = parseAll([bytes])

    for request in whole.requests {
        // What the parser accepted has no CR, LF or NUL in its head, so the serializer (which
        // refuses them) must write it.
        let written: [UInt8]
        do { written = try request.serialized() } catch {
            fatalError(
                "fuzz-http-request invariant broken: a parsed request cannot be serialized: \(request): \(error)")
        }
        let again = parseAll([written], maxHeadSize: 4096)
        check(
            again.error == nil && again.requests.count == 1,
            "a parsed request does not parse back: \(request) gave \(again)")
        guard let copy = again.requests.first else { continue }
        check(
            copy.method == request.method && copy.target == request.target && copy.version == request.version,
            "request line changed: \(request) vs \(copy)")
        check(copy.body == request.body, "body changed: \(request.body) vs \(copy.body)")
        check(
            withoutContentLength(copy.headers) == withoutContentLength(request.headers),
            "headers changed: \(request.headers) vs \(copy.headers)")
    }
    return 0
}

/// Small limits, so that the fuzzer reaches 413 and 431 with short inputs.
/// The re-parse of a serialized request gets a larger head limit: the serializer adds spaces.
private func parseAll(_ chunks: [[UInt8]], maxHeadSize: Int = 512) -> (requests: [HTTPRequest], error: HTTPParseError?)
{
    var parser = HTTPRequestParser(maxHeadSize: maxHeadSize, maxBodySize: 64)
    var requests: [HTTPRequest] = []
    do {
        for chunk in chunks {
            parser.feed(chunk)
            while let request = try parser.nextRequest() { requests.append(request) }
        }
    } catch {
        return (requests, error)
    }
    return (requests, nil)
}

private func withoutContentLength(_ headers: HTTPHeaders) -> HTTPHeaders {
    var headers = headers
    headers.remove(name: "Content-Length")
    return headers
}

private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("fuzz-http-request invariant broken: \(message())") }
}
