/// A strict JSON parser (RFC 8259) over UTF-8 bytes.
///
/// Strict on purpose: the store's files are written by machines and read by people, so a
/// hand edit that breaks them must be named precisely (byte offset, what was expected) rather
/// than guessed around. Rejects duplicate object keys, invalid UTF-8, lone surrogates,
/// leading zeros, trailing commas, and anything past its ``Limits`` (nesting deeper than 64,
/// more than 10,000 keys in one object, more than 1,000,000 elements in one array).
///
/// Parsing is linear in the input: duplicate keys are found with a hash set (past 16 keys in
/// one object; below that, by comparing), so a hostile answer of one object with half a million
/// keys is refused at the cap in milliseconds instead of being compared key against key for
/// minutes. A caller with a deadline (the sync's request deadline) passes it, and parsing stops
/// once it has passed.
public struct JSONParser {
    /// How big one container may be. Past a limit, parsing fails naming it.
    public struct Limits: Sendable, Equatable {
        /// Objects and arrays nested inside each other.
        public var maxDepth: Int
        /// Keys in one object.
        public var maxMembers: Int
        /// Elements in one array.
        public var maxElements: Int

        public init(maxDepth: Int = 64, maxMembers: Int = 10_000, maxElements: Int = 1_000_000) {
            self.maxDepth = maxDepth
            self.maxMembers = maxMembers
            self.maxElements = maxElements
        }

        /// 64 levels, 10,000 keys per object, 1,000,000 elements per array: far above anything
        /// the store or wire v1 writes (a page holds 500 messages of a handful of keys).
        public static let `default` = Limits()
    }

    /// Why parsing failed, and where (0-based byte offset into the input).
    public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
        public var offset: Int
        public var reason: String
        public var description: String { "\(reason) at byte \(offset + 1)" }
        /// Whether parsing stopped because the caller's deadline passed (the input may be fine).
        public var deadlinePassed: Bool { reason == JSONParser.deadlineReason }
    }

    static let deadlineReason = "parsing did not finish before the deadline"

    private let bytes: [UInt8]
    private var index: Int
    private let end: Int
    private var depth = 0
    private let limits: Limits
    private let deadline: ContinuousClock.Instant?
    /// Values parsed since the deadline was last looked at (reading the clock per value would cost more than parsing).
    private var sinceClockCheck = 0
    private static let valuesPerClockCheck = 4096

    /// Parses exactly one JSON value (surrounded by optional whitespace) from `bytes[range]`.
    /// - Parameters:
    ///   - limits: the caps on nesting and container sizes; ``Limits/default`` unless the caller knows better.
    ///   - deadline: when given, parsing fails once this instant has passed (checked every few thousand values,
    ///     so an answer of fewer values is always decoded).
    public static func parse(
        _ bytes: [UInt8], in range: Range<Int>? = nil, limits: Limits = .default,
        deadline: ContinuousClock.Instant? = nil
    ) throws(Failure) -> JSONValue {
        let range = range ?? 0..<bytes.count
        var parser = JSONParser(
            bytes: bytes, index: range.lowerBound, end: range.upperBound, limits: limits, deadline: deadline)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == parser.end else {
            throw parser.failure("unexpected \(parser.describeCurrent()) after the value")
        }
        return value
    }

    /// Parses one JSON value from a string.
    public static func parse(_ text: String) throws(Failure) -> JSONValue {
        try parse(Array(text.utf8))
    }

    private init(bytes: [UInt8], index: Int, end: Int, limits: Limits, deadline: ContinuousClock.Instant?) {
        self.bytes = bytes
        self.index = index
        self.end = end
        self.limits = limits
        self.deadline = deadline
    }

    private func failure(_ reason: String) -> Failure {
        Failure(offset: index, reason: reason)
    }

    private func describeCurrent() -> String {
        guard index < end else { return "end of input" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F { return "'\(Character(UnicodeScalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16))"
    }

    private mutating func skipWhitespace() {
        while index < end {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(Failure) -> JSONValue {
        if let deadline {
            sinceClockCheck += 1
            // Not at the first value: an answer that arrived in time is never refused for a
            // decode of a few values; the deadline stops decodes that are long themselves.
            if sinceClockCheck >= Self.valuesPerClockCheck {
                sinceClockCheck = 0
                if ContinuousClock.now >= deadline { throw failure(Self.deadlineReason) }
            }
        }
        guard index < end else { throw failure("unexpected end of input; a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw failure("unexpected \(describeCurrent()); a value was expected")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        let matches = index + count <= end && (0..<count).allSatisfy { bytes[index + $0] == literal.utf8Start[$0] }
        guard matches else { throw failure("unexpected \(describeCurrent()); a value was expected") }
        index += count
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        if depth > limits.maxDepth { throw failure("nesting deeper than \(limits.maxDepth) levels") }
    }

    /// Members up to which an object's keys are checked for repeats without a hash set.
    private static var linearKeys: Int { 16 }

    private mutating func parseObject() throws(Failure) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        // Small objects (every object a store file holds) are checked for a repeated key by
        // comparing with the keys so far: the first `Set<String>` a process makes costs a scan
        // of every protocol conformance in the binary. Past `linearKeys` members, a set.
        var keys: Set<String>?
        skipWhitespace()
        if index < end && bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < end, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("unexpected \(describeCurrent()); a key in double quotes was expected")
            }
            let keyOffset = index
            let key = try parseString()
            let repeated: Bool
            if members.count < Self.linearKeys {
                repeated = members.contains { $0.key == key }
            } else {
                var set = keys.take() ?? Set(members.map(\.key))
                repeated = !set.insert(key).inserted
                keys = set
            }
            guard !repeated else {
                throw Failure(offset: keyOffset, reason: "the key \(quoted(key)) appears twice in one object")
            }
            guard members.count < limits.maxMembers else {
                throw Failure(offset: keyOffset, reason: "an object has more than \(limits.maxMembers) keys")
            }
            skipWhitespace()
            guard index < end, bytes[index] == UInt8(ascii: ":") else {
                throw failure("unexpected \(describeCurrent()); ':' was expected")
            }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            guard index < end else { throw failure("unexpected end of input; ',' or '}' was expected") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else {
                throw failure("unexpected \(describeCurrent()); ',' or '}' was expected")
            }
            index += 1
            return .object(members)
        }
    }

    private mutating func parseArray() throws(Failure) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < end && bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            guard elements.count < limits.maxElements else {
                throw failure("an array has more than \(limits.maxElements) elements")
            }
            elements.append(try parseValue())
            skipWhitespace()
            guard index < end else { throw failure("unexpected end of input; ',' or ']' was expected") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else {
                throw failure("unexpected \(describeCurrent()); ',' or ']' was expected")
            }
            index += 1
            return .array(elements)
        }
    }

    private mutating func parseNumber() throws(Failure) -> JSONValue {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < end, isDigit(bytes[index]) else { throw failure("a digit was expected") }
        if bytes[index] == UInt8(ascii: "0"), index + 1 < end, isDigit(bytes[index + 1]) {
            throw failure("numbers may not have leading zeros")
        }
        while index < end, isDigit(bytes[index]) { index += 1 }
        var isInteger = true
        if index < end, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < end, isDigit(bytes[index]) else { throw failure("a digit was expected after '.'") }
            while index < end, isDigit(bytes[index]) { index += 1 }
        }
        if index < end, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < end, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < end, isDigit(bytes[index]) else { throw failure("a digit was expected in the exponent") }
            while index < end, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let value = Int(text) { return .integer(value) }
        // Double("1e999") is infinity, which no JSON writer can write back: refuse it here.
        guard let value = Double(text), value.isFinite else {
            throw Failure(offset: start, reason: "the number \(text) cannot be represented")
        }
        return .number(value)
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    private mutating func parseString() throws(Failure) -> String {
        index += 1
        let start = index
        // Fast path: no escapes; validate UTF-8 once with the standard library.
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = bytes[start..<index]
                guard let text = String(validating: slice, as: UTF8.self) else {
                    throw Failure(offset: start, reason: "the string is not valid UTF-8")
                }
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 {
                throw failure("a control character (0x\(String(byte, radix: 16))) must be escaped inside a string")
            }
            index += 1
        }
        var scalars: [UInt8] = Array(bytes[start..<index])
        while index < end {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: scalars, as: UTF8.self) else {
                    throw Failure(offset: start, reason: "the string is not valid UTF-8")
                }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < end else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append(0x22)
                case UInt8(ascii: "\\"): scalars.append(0x5C)
                case UInt8(ascii: "/"): scalars.append(0x2F)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    let scalar = try parseUnicodeEscape()
                    scalars.append(contentsOf: Array(String(Character(scalar)).utf8))
                default:
                    index -= 1
                    throw failure("invalid escape '\\\(Character(UnicodeScalar(escape)))'")
                }
            default:
                if byte < 0x20 {
                    throw failure("a control character (0x\(String(byte, radix: 16))) must be escaped inside a string")
                }
                scalars.append(byte)
                index += 1
            }
        }
        throw failure("unexpected end of input inside a string")
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        guard index + 4 <= end else { throw failure("\\u needs four hexadecimal digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw failure("\\u needs four hexadecimal digits")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private mutating func parseUnicodeEscape() throws(Failure) -> Unicode.Scalar {
        let first = try parseHex4()
        if (0xD800...0xDBFF).contains(first) {
            guard index + 2 <= end, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw failure("a high surrogate must be followed by a low surrogate")
            }
            index += 2
            let second = try parseHex4()
            guard (0xDC00...0xDFFF).contains(second),
                let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            else {
                throw failure("a high surrogate must be followed by a low surrogate")
            }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else { throw failure("a lone surrogate is not a character") }
        return scalar
    }
}
