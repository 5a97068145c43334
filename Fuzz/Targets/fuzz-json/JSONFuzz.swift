import ChatDomain

/// libFuzzer target for `JSONParser` and `JSONWriter`: parse → canonical write → parse gives the
/// same value, and writing that value again gives the same bytes (the canonical form is a fixed
/// point: same value, same bytes on every device).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let value = try? JSONParser.parse(bytes) else { return 0 }
    let canonical = JSONWriter.encode(value)
    let again: JSONValue
    do {
        again = try JSONParser.parse(canonical)
    } catch {
        fatalError(
            "fuzz-json invariant broken: the canonical form of a parsed value does not parse (\(error)): \(String(decoding: canonical, as: UTF8.self))"
        )
    }
    if again != value {
        fatalError("fuzz-json invariant broken: the value changed in a round trip: \(value) vs \(again)")
    }
    if JSONWriter.encode(again) != canonical {
        fatalError(
            "fuzz-json invariant broken: the canonical form is not stable: \(String(decoding: canonical, as: UTF8.self))"
        )
    }
    return 0
}
