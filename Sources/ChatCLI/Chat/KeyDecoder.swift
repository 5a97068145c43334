/// Turns the bytes a terminal sends for keys, the mouse wheel, focus changes and bracketed
/// pastes into ``Key``s, a byte at a time, so a sequence or a UTF-8 character split across
/// reads is completed by the next ``feed(_:)``. What it decodes depends only on the bytes, never
/// on how they were split, except that one feed's run of text is one `.text`.
///
/// Escape itself is the start of every sequence: a lone ESC stays pending until the screen,
/// after about 50 ms without bytes, calls ``flush()``. Sequences it does not know (function
/// keys, Alt with a letter, terminal replies) are skipped whole; none of their bytes is ever
/// taken for text. Invalid UTF-8 reads as U+FFFD. Any input leaves it in a state it can leave.
struct KeyDecoder {
    /// The most a paste keeps, in bytes; the rest of the paste is dropped.
    static let pasteLimit = 1 << 20
    /// Parameter bytes kept of a control sequence; a longer one is skipped to its end.
    static let parameterLimit = 32

    enum State {
        case ground
        /// After ESC.
        case escape
        /// After ESC [: parameter and intermediate bytes so far.
        case controlSequence(parameters: [UInt8], intermediates: Bool, overlong: Bool)
        /// After ESC O (application cursor keys): waiting for the final byte.
        case singleShift
        /// After ESC [ M without parameters (X10 mouse): three raw bytes to skip.
        case x10Mouse(remaining: Int)
        /// Inside a UTF-8 character: the bits so far, bytes still needed, the next byte's range.
        case utf8(scalar: UInt32, needed: Int, lower: UInt8, upper: UInt8)
        /// Inside a bracketed paste: how many bytes of ESC [ 2 0 1 ~ were just seen.
        case paste(matched: Int)
    }

    private(set) var state = State.ground
    private var keys: [Key] = []
    private var text = String.UnicodeScalarView()
    private var pasted: [UInt8] = []

    private static let pasteEnd: [UInt8] = Array("\u{1B}[201~".utf8)

    /// The keys `bytes` complete; bytes of an unfinished sequence wait for the next feed.
    mutating func feed(_ bytes: [UInt8]) -> [Key] {
        for byte in bytes { consume(byte) }
        return take()
    }

    /// Ends what is pending after a pause: a lone ESC is `.escape`, half a UTF-8 character
    /// U+FFFD, half a sequence nothing. A paste goes on (a long one arrives in many reads).
    mutating func flush() -> [Key] {
        switch state {
        case .escape:
            emit(.escape)
        case .utf8:
            text.append("\u{FFFD}")
        case .controlSequence, .singleShift, .x10Mouse:
            break
        case .ground, .paste:
            return take()
        }
        state = .ground
        return take()
    }

    private mutating func take() -> [Key] {
        endText()
        defer { keys = [] }
        return keys
    }

    private mutating func emit(_ key: Key) {
        endText()
        keys.append(key)
    }

    private mutating func endText() {
        guard !text.isEmpty else { return }
        keys.append(.text(String(text)))
        text = String.UnicodeScalarView()
    }

    private mutating func consume(_ byte: UInt8) {
        switch state {
        case .ground:
            ground(byte)
        case .escape:
            afterEscape(byte)
        case .controlSequence(let parameters, let intermediates, let overlong):
            switch byte {
            case 0x30...0x3F:
                if parameters.count < Self.parameterLimit {
                    state = .controlSequence(
                        parameters: parameters + [byte], intermediates: intermediates, overlong: overlong)
                } else {
                    state = .controlSequence(parameters: parameters, intermediates: intermediates, overlong: true)
                }
            case 0x20...0x2F:
                state = .controlSequence(parameters: parameters, intermediates: true, overlong: overlong)
            case 0x40...0x7E:
                state = .ground
                if !overlong, !intermediates { controlSequence(parameters, final: byte) }
            default:
                // Not part of a sequence (a control byte, DEL, UTF-8): the sequence ends unread.
                state = .ground
                ground(byte)
            }
        case .singleShift:
            switch byte {
            case 0x30...0x3F:
                break
            case 0x40...0x7E:
                state = .ground
                if let key = Self.cursorKey(byte) {
                    emit(key)
                } else if byte == UInt8(ascii: "M") {
                    emit(.enter)
                }
            default:
                state = .ground
                ground(byte)
            }
        case .x10Mouse(let remaining):
            state = remaining > 1 ? .x10Mouse(remaining: remaining - 1) : .ground
        case .utf8(let scalar, let needed, let lower, let upper):
            guard byte >= lower, byte <= upper else {
                text.append("\u{FFFD}")
                state = .ground
                ground(byte)
                return
            }
            let value = scalar << 6 | UInt32(byte & 0x3F)
            if needed > 1 {
                state = .utf8(scalar: value, needed: needed - 1, lower: 0x80, upper: 0xBF)
            } else {
                state = .ground
                typed(value)
            }
        case .paste(let matched):
            pasteByte(byte, matched: matched)
        }
    }

    private mutating func ground(_ byte: UInt8) {
        switch byte {
        case 0x20...0x7E: text.append(Unicode.Scalar(byte))
        case 0x0D: emit(.enter)
        case 0x0A: emit(.newline)
        case 0x09: emit(.tab)
        case 0x08, 0x7F: emit(.backspace)
        case 0x1B: state = .escape
        case 0x01...0x1A: emit(.control(Character(Unicode.Scalar(byte + 0x60))))
        case 0x00, 0x1C...0x1F: emit(.control(Character(Unicode.Scalar(byte + 0x40))))
        case 0xC2...0xDF: state = .utf8(scalar: UInt32(byte & 0x1F), needed: 1, lower: 0x80, upper: 0xBF)
        case 0xE0: state = .utf8(scalar: 0, needed: 2, lower: 0xA0, upper: 0xBF)
        case 0xED: state = .utf8(scalar: 0x0D, needed: 2, lower: 0x80, upper: 0x9F)
        case 0xE1...0xEF: state = .utf8(scalar: UInt32(byte & 0x0F), needed: 2, lower: 0x80, upper: 0xBF)
        case 0xF0: state = .utf8(scalar: 0, needed: 3, lower: 0x90, upper: 0xBF)
        case 0xF4: state = .utf8(scalar: 4, needed: 3, lower: 0x80, upper: 0x8F)
        case 0xF1...0xF3: state = .utf8(scalar: UInt32(byte & 0x07), needed: 3, lower: 0x80, upper: 0xBF)
        default: text.append("\u{FFFD}")
        }
    }

    /// A whole character typed; C1 controls (U+0080–U+009F) are dropped, never text.
    private mutating func typed(_ value: UInt32) {
        guard let scalar = Unicode.Scalar(value) else {
            text.append("\u{FFFD}")
            return
        }
        if value >= 0x80, value <= 0x9F { return }
        text.append(scalar)
    }

    private mutating func afterEscape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "["):
            state = .controlSequence(parameters: [], intermediates: false, overlong: false)
        case UInt8(ascii: "O"):
            state = .singleShift
        case 0x0D, 0x0A:
            state = .ground
            emit(.newline)
        case 0x1B:
            // Escape pressed twice: the first is a key, the second may start a sequence.
            emit(.escape)
        case 0x20...0x7F:
            // Alt with a key: not a key the screen knows, and never text.
            state = .ground
        default:
            emit(.escape)
            state = .ground
            ground(byte)
        }
    }

    private mutating func controlSequence(_ parameters: [UInt8], final: UInt8) {
        if parameters.isEmpty, final == UInt8(ascii: "M") {
            state = .x10Mouse(remaining: 3)
            return
        }
        if parameters.first == UInt8(ascii: "<") {
            mouse(parameters.dropFirst(), pressed: final == UInt8(ascii: "M"))
            return
        }
        // Private parameters (`?`, `>`, `=`) come in terminal replies, not keys.
        if let first = parameters.first, first >= 0x3C { return }
        if let key = Self.cursorKey(final) {
            emit(key)
            return
        }
        switch final {
        case UInt8(ascii: "Z"): emit(.backTab)
        case UInt8(ascii: "I") where parameters.isEmpty: emit(.focusIn)
        case UInt8(ascii: "O") where parameters.isEmpty: emit(.focusOut)
        case UInt8(ascii: "~"):
            switch Self.numbers(parameters[...]).first ?? nil {
            case 1, 7: emit(.home)
            case 4, 8: emit(.end)
            case 3: emit(.delete)
            case 5: emit(.pageUp)
            case 6: emit(.pageDown)
            case 200:
                endText()
                pasted = []
                state = .paste(matched: 0)
            default: break
            }
        default:
            break
        }
    }

    /// SGR mouse (ESC [ < button ; column ; row M): the wheel only. Buttons 64 and 65 are the
    /// wheel; 4, 8 and 16 add Shift, Alt and Ctrl, 32 motion (not a wheel step).
    private mutating func mouse(_ parameters: ArraySlice<UInt8>, pressed: Bool) {
        guard pressed, let button = Self.numbers(parameters).first ?? nil else { return }
        switch button & ~(4 | 8 | 16) {
        case 64: emit(.wheelUp)
        case 65: emit(.wheelDown)
        default: break
        }
    }

    /// The `;`-separated numbers of a parameter string: nil for one that is empty, not digits,
    /// or too long to be a key's.
    static func numbers(_ parameters: ArraySlice<UInt8>) -> [Int?] {
        parameters.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false).map { field in
            guard !field.isEmpty, field.count <= 6, field.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            return field.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        }
    }

    private mutating func pasteByte(_ byte: UInt8, matched: Int) {
        if byte == Self.pasteEnd[matched] {
            if matched + 1 < Self.pasteEnd.count {
                state = .paste(matched: matched + 1)
            } else {
                state = .ground
                emit(.paste(Self.pasteText(pasted)))
                pasted = []
            }
            return
        }
        // What looked like the end marker was pasted text.
        for marker in Self.pasteEnd.prefix(matched) { keep(marker) }
        if byte == Self.pasteEnd[0] {
            state = .paste(matched: 1)
        } else {
            keep(byte)
            state = .paste(matched: 0)
        }
    }

    private mutating func keep(_ byte: UInt8) {
        if pasted.count < Self.pasteLimit { pasted.append(byte) }
    }

    /// Pasted bytes as text: line ends (terminals paste CR, or CR LF) as `\n`, other control
    /// characters removed except tabs, invalid UTF-8 as U+FFFD.
    static func pasteText(_ bytes: [UInt8]) -> String {
        var out = String.UnicodeScalarView()
        var afterCR = false
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            defer { afterCR = scalar == "\r" }
            switch scalar.value {
            case 0x0D: out.append("\n")
            case 0x0A: if !afterCR { out.append("\n") }
            case 0x09: out.append(scalar)
            case 0x00..<0x20, 0x7F...0x9F: break
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}

extension KeyDecoder {
    /// The arrows, Home and End: the same final byte after `ESC [` (with or without
    /// parameters) and after `ESC O` (application cursor mode).
    static func cursorKey(_ final: UInt8) -> Key? {
        switch final {
        case UInt8(ascii: "A"): .up
        case UInt8(ascii: "B"): .down
        case UInt8(ascii: "C"): .right
        case UInt8(ascii: "D"): .left
        case UInt8(ascii: "H"): .home
        case UInt8(ascii: "F"): .end
        default: nil
        }
    }
}
