/// Writes JSON in the store's canonical form: no insignificant whitespace, object members in
/// the order given, strings escaped minimally (`"`, `\`, control characters) and everything
/// else, `/` and non-ASCII included, written as its UTF-8 bytes. Same value → same bytes.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []
    /// How strings are escaped; the store's files are always ``Escaping/canonical``.
    public var escaping: Escaping

    /// Which characters of a string are written as `\u` escapes.
    public enum Escaping: Sendable {
        /// The store's canonical form: only what JSON requires (`"`, `\`, C0 controls).
        case canonical
        /// For output a person may read on a terminal (`--json`, `watch`): also DEL, the C1
        /// controls U+0080–U+009F and the bidirectional overrides U+202A–U+202E, U+2066–U+2069,
        /// so the line carries the exact text while no byte of it can drive the terminal.
        case terminalSafe
    }

    public init(capacity: Int = 256, escaping: Escaping = .canonical) {
        bytes.reserveCapacity(capacity)
        self.escaping = escaping
    }

    /// The bytes of `value`, canonical unless `escaping` says otherwise.
    public static func encode(_ value: JSONValue, escaping: Escaping = .canonical) -> [UInt8] {
        var writer = JSONWriter(escaping: escaping)
        writer.write(value)
        return writer.bytes
    }

    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let flag): raw(flag ? "true" : "false")
        case .integer(let number): write(number)
        case .number(let number): bytes.append(contentsOf: number.description.utf8)
        case .string(let text): write(text)
        case .array(let values):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in values.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(member.key)
                bytes.append(UInt8(ascii: ":"))
                write(member.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Appends raw ASCII, such as punctuation around hand-written records.
    public mutating func raw(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    public mutating func write(_ number: Int) {
        bytes.append(contentsOf: String(number).utf8)
    }

    public mutating func write(_ text: String) {
        if escaping == .terminalSafe {
            writeTerminalSafe(text)
            return
        }
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in appendEscaped(utf8) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `utf8` escaped canonically: the runs between the bytes that need an escape are copied
    /// whole, not appended a byte at a time.
    private mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var run = 0
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run..<index]))
            run = index + 1
            switch byte {
            case UInt8(ascii: "\""):
                bytes.append(0x5C)
                bytes.append(0x22)
            case UInt8(ascii: "\\"):
                bytes.append(0x5C)
                bytes.append(0x5C)
            case 0x0A:
                bytes.append(0x5C)
                bytes.append(UInt8(ascii: "n"))
            case 0x0D:
                bytes.append(0x5C)
                bytes.append(UInt8(ascii: "r"))
            case 0x09:
                bytes.append(0x5C)
                bytes.append(UInt8(ascii: "t"))
            case 0x08:
                bytes.append(0x5C)
                bytes.append(UInt8(ascii: "b"))
            case 0x0C:
                bytes.append(0x5C)
                bytes.append(UInt8(ascii: "f"))
            default:
                let hex = Self.hexDigits
                bytes.append(contentsOf: [
                    0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)],
                    hex[Int(byte & 0xF)],
                ])
            }
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[run...]))
    }

    /// ``Escaping/terminalSafe``: scalar by scalar, `\u` for DEL, C1 and bidi overrides too.
    private mutating func writeTerminalSafe(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        let hex = Self.hexDigits
        for scalar in text.unicodeScalars {
            let value = scalar.value
            switch value {
            case 0x22:
                bytes.append(0x5C)
                bytes.append(0x22)
            case 0x5C:
                bytes.append(0x5C)
                bytes.append(0x5C)
            case 0x0A:
                bytes.append(0x5C)
                bytes.append(UInt8(ascii: "n"))
            case 0x0D:
                bytes.append(0x5C)
                bytes.append(UInt8(ascii: "r"))
            case 0x09:
                bytes.append(0x5C)
                bytes.append(UInt8(ascii: "t"))
            case 0x00..<0x20, 0x7F, 0x80...0x9F, 0x202A...0x202E, 0x2066...0x2069:
                bytes.append(0x5C)
                bytes.append(UInt8(ascii: "u"))
                for shift in [12, 8, 4, 0] { bytes.append(hex[Int((value >> UInt32(shift)) & 0xF)]) }
            default: UTF8.encode(scalar) { bytes.append($0) }
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes `"key":` for a hand-ordered object.
    public mutating func key(_ name: StaticString) {
        bytes.append(UInt8(ascii: "\""))
        raw(name)
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
