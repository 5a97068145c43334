@testable import ChatCLI

/// libFuzzer target for the chat screen's `KeyDecoder`: no crash or hang on any bytes, and:
/// - the keys are the same fed at once, a byte at a time, or in chunks of a size the first
///   byte picks (a terminal's reads split sequences anywhere), once runs of text are joined;
/// - text never holds a control character, a paste none but newline and tab, and a paste is
///   at most the limit (U+FFFD for a broken character aside);
/// - a pause (`flush`) after every byte never crashes, and leaves the decoder reading keys.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyDecoder(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = decode([bytes])
    check(decode(bytes.map { [$0] }) == whole, "keys differ when fed a byte at a time")
    let chunk = 1 + Int(bytes.first ?? 0) % 7
    check(
        decode(stride(from: 0, to: bytes.count, by: chunk).map { Array(bytes[$0..<min(bytes.count, $0 + chunk)]) })
            == whole,
        "keys differ when fed in chunks of \(chunk)")
    for key in whole {
        switch key {
        case .text(let text):
            check(!text.isEmpty, "an empty .text")
            check(
                !text.unicodeScalars.contains { $0.properties.generalCategory == .control },
                "a control character in .text: \(text.debugDescription)")
        case .paste(let text):
            check(
                !text.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" && $0 != "\t" },
                "a control character in .paste: \(text.debugDescription)")
            check(text.unicodeScalars.count <= KeyDecoder.pasteLimit, "a paste over the limit")
        default:
            break
        }
    }
    var paused = KeyDecoder()
    for byte in bytes {
        _ = paused.feed([byte])
        _ = paused.flush()
    }
    // Whatever came before (unless inside a paste, which a pause does not end), Enter is Enter.
    if case .paste = paused.state {
    } else {
        check(paused.feed([0x0D]) == [.enter], "after a pause, CR is not Enter (state \(paused.state))")
    }
    return 0
}

/// The keys of `chunks` fed in turn, then flushed, with adjacent runs of text joined.
private func decode(_ chunks: [[UInt8]]) -> [Key] {
    var decoder = KeyDecoder()
    var keys: [Key] = []
    for chunk in chunks { keys += decoder.feed(chunk) }
    keys += decoder.flush()
    var joined: [Key] = []
    for key in keys {
        if case .text(let more) = key, case .text(let text)? = joined.last {
            joined[joined.count - 1] = .text(text + more)
        } else {
            joined.append(key)
        }
    }
    return joined
}

private func check(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError("fuzz-keys invariant broken: \(message())") }
}
