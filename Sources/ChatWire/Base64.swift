/// Base64 with the standard alphabet and padding (RFC 4648 §4), for WebSocket keys and accept values.
///
/// Written here so that ChatWire stays free of Foundation. Decoding is strict: it accepts only the
/// canonical encoding, so two different strings never decode to the same bytes.
public enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Maps an ASCII byte to its 6-bit value; 0xFF marks bytes outside the alphabet.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in alphabet.enumerated() {
            table[Int(byte)] = UInt8(value)
        }
        return table
    }()

    /// The padded base64 text of `bytes`.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        for start in stride(from: 0, to: input.count, by: 3) {
            let chunk = input[start..<min(start + 3, input.count)]
            var group = UInt32(0)
            for (offset, byte) in chunk.enumerated() {
                group |= UInt32(byte) << UInt32(16 - 8 * offset)
            }
            for position in 0..<4 {
                if position <= chunk.count {
                    output.append(alphabet[Int(group >> UInt32(18 - 6 * position) & 0x3F)])
                } else {
                    output.append(UInt8(ascii: "="))
                }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes that `text` encodes, or nil unless `text` is canonical padded base64: length a
    /// multiple of 4, only alphabet characters, at most two `=` and only at the end, and zero
    /// unused bits before the padding. No whitespace or line breaks are allowed.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        let padding = input.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2 else { return nil }

        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        for start in stride(from: 0, to: input.count, by: 4) {
            let isLast = start + 4 == input.count
            let symbols = isLast ? 4 - padding : 4
            var group = UInt32(0)
            for offset in 0..<symbols {
                let value = values[Int(input[start + offset])]
                guard value != 0xFF else { return nil }
                group |= UInt32(value) << UInt32(18 - 6 * offset)
            }
            let byteCount = symbols == 4 ? 3 : symbols - 1
            let unusedBits = UInt32(24 - 8 * byteCount)
            guard group & ((1 << unusedBits) - 1) == 0 else { return nil }
            for offset in 0..<byteCount {
                output.append(UInt8(truncatingIfNeeded: group >> UInt32(16 - 8 * offset)))
            }
        }
        return output
    }
}
