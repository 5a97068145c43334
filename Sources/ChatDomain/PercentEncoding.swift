/// `%XX` escapes (upper-case hexadecimal) for every UTF-8 byte of a text that a caller's
/// alphabet does not keep: one encoder for a Matrix user ID as a file name and for a Matrix
/// request's path segments, whose alphabets differ.
public enum PercentEncoding {
    /// `text` with each byte `keeps` refuses written as `%XX`.
    public static func encode(_ text: String, keeping keeps: (UInt8) -> Bool) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if keeps(byte) {
                bytes.append(byte)
            } else {
                bytes += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `byte` is a letter, digit, `-`, `.` or `_`: kept by every alphabet here.
    public static func isLetterDigitOrMark(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"): true
        default: false
        }
    }
}
