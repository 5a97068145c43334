/// Reads an HTTP/1.1 chunked body (RFC 9112, section 7.1) as it arrives, piece by piece: the
/// chunk sizes in hex, each chunk's data and CRLF, the last chunk of size 0, the trailer lines
/// (read and dropped) and the empty line that ends it. Bounded: a body over `maxBodySize`, a
/// size or trailer line over ``maxLineLength``, or any byte out of place is refused.
public struct ChunkedBodyDecoder: Sendable {
    /// Why a chunked body was refused.
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case malformed(String)
        case tooLarge(limit: Int)

        public var description: String {
            switch self {
            case .malformed(let reason): "a malformed chunked body: \(reason)"
            case .tooLarge(let limit): "a chunked answer over the \(limit)-byte limit"
            }
        }
    }

    private enum State: Sendable {
        /// Reading a chunk-size line (and any extension after `;`) up to its CRLF.
        case size(line: [UInt8])
        /// Copying `remaining` bytes of a chunk's data.
        case data(remaining: Int)
        /// Expecting the CRLF after a chunk's data; `sawCR` once the CR came.
        case dataEnd(sawCR: Bool)
        /// Reading trailer lines after the last chunk; an empty one ends the body.
        case trailer(line: [UInt8])
        case done
    }

    /// The longest chunk-size or trailer line accepted (extensions included), in bytes.
    public static let maxLineLength = 4096

    public let maxBodySize: Int
    /// The body decoded so far.
    public private(set) var body: [UInt8] = []
    private var state = State.size(line: [])

    public init(maxBodySize: Int) {
        self.maxBodySize = maxBodySize
    }

    /// Whether the body's end (the empty line after the last chunk) has been read.
    public var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    /// Reads `bytes`; returns those after the body's end (the start of another answer), empty
    /// while the body goes on.
    public mutating func feed(_ bytes: ArraySlice<UInt8>) throws(Failure) -> ArraySlice<UInt8> {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            switch state {
            case .done:
                return bytes[index...]
            case .data(let remaining):
                let end = min(bytes.endIndex, index + remaining)
                body += bytes[index..<end]
                state =
                    remaining - (end - index) == 0
                    ? .dataEnd(sawCR: false) : .data(remaining: remaining - (end - index))
                index = end
            case .dataEnd(let sawCR):
                let byte = bytes[index]
                index += 1
                if !sawCR, byte == 13 {
                    state = .dataEnd(sawCR: true)
                } else if sawCR, byte == 10 {
                    state = .size(line: [])
                } else {
                    throw .malformed("a chunk's data is not followed by CRLF")
                }
            case .size(var line), .trailer(var line):
                let isSize = if case .size = state { true } else { false }
                guard let newline = bytes[index...].firstIndex(of: 10) else {
                    line += bytes[index...]
                    try Self.checkLength(line)
                    state = isSize ? .size(line: line) : .trailer(line: line)
                    return []
                }
                line += bytes[index..<newline]
                index = newline + 1
                try Self.checkLength(line)
                guard line.last == 13 else { throw .malformed("a line ends in LF without CR") }
                line.removeLast()
                if isSize {
                    let size = try chunkSize(line)
                    state = size == 0 ? .trailer(line: []) : .data(remaining: size)
                } else {
                    state = line.isEmpty ? .done : .trailer(line: [])
                }
            }
        }
        return []
    }

    private static func checkLength(_ line: [UInt8]) throws(Failure) {
        guard line.count <= maxLineLength else { throw .malformed("a line longer than \(maxLineLength) bytes") }
    }

    /// The size of a chunk-size line (hex digits, then an optional `;extension`), checked
    /// against what the body may still hold.
    private func chunkSize(_ line: [UInt8]) throws(Failure) -> Int {
        let digits = line.prefix { $0 != UInt8(ascii: ";") && $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
        guard !digits.isEmpty else { throw .malformed("a chunk size is missing") }
        var size = 0
        for digit in digits {
            let value: Int
            switch digit {
            case 0x30...0x39: value = Int(digit - 0x30)
            case 0x41...0x46: value = Int(digit - 0x41 + 10)
            case 0x61...0x66: value = Int(digit - 0x61 + 10)
            default: throw .malformed("a chunk size is not hexadecimal")
            }
            size = size * 16 + value
            guard size <= maxBodySize - body.count else { throw .tooLarge(limit: maxBodySize) }
        }
        return size
    }
}
