/// Walks the bytes of a file written in a known canonical layout (a segment's record,
/// `positions.json`, `conversation.json`): a value type over the buffer, for readers that skip
/// the JSON parser when the bytes are exactly what the writer writes. Every method returns
/// nil or false, and may have moved `index`, when the bytes are anything else.
struct ByteCursor {
    let bytes: UnsafeBufferPointer<UInt8>
    var index: Int
    let end: Int

    mutating func literal(_ text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard end - index >= count, let base = bytes.baseAddress else { return false }
        let expected = text.utf8Start
        let actual = base + index
        var offset = 0
        while offset + 8 <= count {
            guard ByteScan.word(actual + offset) == ByteScan.word(expected + offset) else { return false }
            offset += 8
        }
        while offset < count {
            guard actual[offset] == expected[offset] else { return false }
            offset += 1
        }
        index += count
        return true
    }

    /// The bytes up to the next quote, when none of them needs an escape.
    mutating func plainString() -> UnsafeBufferPointer<UInt8>? {
        let start = index
        // Eight bytes at a time while none is a quote, a backslash or a control character.
        if let base = bytes.baseAddress {
            while end - index >= 8 {
                let word = ByteScan.word(base + index)
                if ByteScan.has(UInt8(ascii: "\""), in: word) || ByteScan.has(UInt8(ascii: "\\"), in: word)
                    || ByteScan.hasByte(below: 0x20, in: word)
                {
                    break
                }
                index += 8
            }
        }
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return UnsafeBufferPointer(rebasing: bytes[start..<(index - 1)])
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            index += 1
        }
        return nil
    }

    /// A whole number in canonical form (digits only, no leading zero but for 0 itself, at most
    /// 15 digits so it cannot overflow; longer ones are left to the parser).
    mutating func number() -> Int? {
        let start = index
        var value = 0
        while index < end, bytes[index] >= 0x30, bytes[index] <= 0x39 {
            value = value &* 10 &+ Int(bytes[index] - 0x30)
            index += 1
        }
        let digits = index - start
        guard digits > 0, digits <= 15, digits == 1 || bytes[start] != 0x30 else { return nil }
        return value
    }

    /// A string of valid UTF-8, nil otherwise; ASCII skips the general validation, which is
    /// most of the cost of a short field.
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        ByteScan.isASCII(bytes) ? String(decoding: bytes, as: UTF8.self) : String(validating: bytes, as: UTF8.self)
    }
}
