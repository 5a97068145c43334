/// One whole frame a screen drew: its lines as text (escape sequences removed), where it left
/// the cursor, and when the read that completed it returned.
struct ScreenFrame: Sendable {
    /// 1 for the first frame a terminal showed, counting up.
    var number: Int
    /// Clock.monotonicNanoseconds just after the read(2) that brought the frame's last byte.
    var at: UInt64
    var lines: [String]
    /// 0-based row and column from the frame's closing `ESC[row;colH`, if it placed the cursor.
    var cursor: (row: Int, column: Int)?

    /// The line the cursor is on (the chat screen's input line).
    var cursorLine: String? {
        guard let cursor, cursor.row >= 0, cursor.row < lines.count else { return nil }
        return lines[cursor.row]
    }

    func contains(_ text: String) -> Bool {
        lines.contains { $0.contains(text) }
    }

    /// The frame as a person would read it, for a failure message.
    var text: String {
        lines.map { "  | " + $0 }.joined(separator: "\n")
    }
}

/// Cuts a terminal's output into frames, as the chat screen and `view --follow` draw them: from
/// `ESC[H` (home) to `ESC[J` (erase below), and, when `cursorEnds`, on to the `ESC[?25h` that
/// shows the cursor again after placing it on the input line. Bytes outside a frame (mode
/// switches, clears) are dropped. A value fed whatever the reads return: a frame split over
/// several reads comes out when its last byte arrives.
struct FrameSplitter {
    /// Whether frames end with the cursor shown (`chat`) rather than at `ESC[J` (`view --follow`).
    let cursorEnds: Bool
    private var pending: [UInt8] = []
    /// Where scanning resumes in `pending`.
    private var scan = 0
    /// Just after the `ESC[H` of the frame being read.
    private var start: Int?
    /// Where `ESC[J` ended the frame's lines, when it waits for the cursor.
    private var bodyEnd: Int?
    private var cursor: (row: Int, column: Int)?

    init(cursorEnds: Bool) {
        self.cursorEnds = cursorEnds
    }

    /// The frames completed by `bytes`: each frame's lines and cursor.
    mutating func feed(_ bytes: ArraySlice<UInt8>) -> [(lines: [String], cursor: (row: Int, column: Int)?)] {
        pending.append(contentsOf: bytes)
        var frames: [(lines: [String], cursor: (row: Int, column: Int)?)] = []
        var consumed = 0
        func finish(_ end: Int, through: Int) {
            if let start { frames.append((Self.lines(pending[start..<end]), cursor)) }
            self.start = nil
            bodyEnd = nil
            cursor = nil
            consumed = through
        }
        while scan < pending.count {
            guard pending[scan] == 0x1B else {
                scan += 1
                continue
            }
            guard let (length, sequence) = Self.escape(at: scan, in: pending) else { break } // incomplete: wait
            let here = scan
            scan += length
            switch sequence {
            case .home:
                if let bodyEnd { finish(bodyEnd, through: here) }
                start = scan
            case .hideCursor:
                if let bodyEnd { finish(bodyEnd, through: here) }
            case .eraseBelow:
                guard start != nil else { continue }
                if cursorEnds {
                    bodyEnd = here
                } else {
                    finish(here, through: scan)
                }
            case .cursorPosition(let row, let column):
                if bodyEnd != nil { cursor = (row - 1, column - 1) }
            case .showCursor:
                if let bodyEnd { finish(bodyEnd, through: scan) }
            case .other:
                continue
            }
        }
        // Keep only what a frame still needs: from its start, or nothing outside a frame.
        let keep = start.map { $0 - 3 } ?? scan
        let cut = max(consumed, min(keep, scan))
        if cut > 0 {
            pending.removeFirst(cut)
            scan -= cut
            start = start.map { $0 - cut }
            bodyEnd = bodyEnd.map { $0 - cut }
        }
        return frames
    }

    private enum Sequence {
        case home, eraseBelow
        case cursorPosition(Int, Int)
        case showCursor, hideCursor, other
    }

    /// The escape sequence at `index` (which holds ESC) and its length; nil while incomplete.
    private static func escape(at index: Int, in bytes: [UInt8]) -> (Int, Sequence)? {
        guard index + 1 < bytes.count else { return nil }
        guard bytes[index + 1] == UInt8(ascii: "[") else { return (2, .other) }
        var end = index + 2
        while end < bytes.count, !(0x40...0x7E).contains(bytes[end]) { end += 1 }
        guard end < bytes.count else { return nil }
        let parameters = String(decoding: bytes[(index + 2)..<end], as: UTF8.self)
        let length = end - index + 1
        switch (bytes[end], parameters) {
        case (UInt8(ascii: "H"), ""): return (length, .home)
        case (UInt8(ascii: "J"), ""): return (length, .eraseBelow)
        case (UInt8(ascii: "h"), "?25"): return (length, .showCursor)
        case (UInt8(ascii: "l"), "?25"): return (length, .hideCursor)
        case (UInt8(ascii: "H"), _):
            let parts = parameters.split(separator: ";", omittingEmptySubsequences: false)
            guard parts.count == 2, let row = Int(parts[0]), let column = Int(parts[1]) else { return (length, .other) }
            return (length, .cursorPosition(row, column))
        default: return (length, .other)
        }
    }

    /// A frame's body as lines of text: split at `\n`, escape sequences and `\r` removed.
    private static func lines(_ body: ArraySlice<UInt8>) -> [String] {
        var lines: [String] = []
        var line: [UInt8] = []
        var index = body.startIndex
        while index < body.endIndex {
            let byte = body[index]
            if byte == 0x1B {
                // CSI: ESC [ parameters final; anything else: ESC and one byte.
                var end = index + 1
                if end < body.endIndex, body[end] == UInt8(ascii: "[") {
                    end += 1
                    while end < body.endIndex, !(0x40...0x7E).contains(body[end]) { end += 1 }
                }
                index = min(end + 1, body.endIndex)
                continue
            }
            // `\r` is dropped wherever it is: a terminal left in cooked output mode turns the
            // screen's `\r\n` into `\r\r\n`.
            if byte == UInt8(ascii: "\n") {
                lines.append(String(decoding: line, as: UTF8.self))
                line.removeAll(keepingCapacity: true)
            } else if byte != UInt8(ascii: "\r") {
                line.append(byte)
            }
            index += 1
        }
        lines.append(String(decoding: line, as: UTF8.self))
        return lines
    }
}
