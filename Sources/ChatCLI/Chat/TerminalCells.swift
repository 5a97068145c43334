/// How many terminal columns (cells) text takes, as a terminal draws it: two for East Asian
/// wide and fullwidth characters and for emoji, none for combining marks and zero-width format
/// characters, one for the rest. Rows and the input line are laid out with it, so a line of
/// Japanese or of emoji ends where the screen does.
///
/// East Asian Width has no property in the standard library: ``wideRanges`` is UAX #11's W and
/// F code points of Unicode 18.0, adjacent ranges joined over unassigned gaps (and the rest of
/// planes 2 and 3, wide by default), widened where terminals draw wider. Emoji come from
/// `Unicode.Scalar.Properties`, which follows the toolchain's Unicode version.
enum TerminalCells {
    /// The cells `character` takes: 0, 1 or 2. A grapheme cluster takes the width of its first
    /// scalar that has one (a base with its combining marks, a Hangul syllable in jamo, an emoji
    /// with its skin tone or ZWJ partners), or 2 when an emoji base asks for emoji presentation
    /// with U+FE0F. Control characters take 0: they are never drawn as such (``TerminalSafe``),
    /// except a tab, which moves at least one cell (``TextWrap`` lays it out as a space).
    static func width(_ character: Character) -> Int {
        if let ascii = character.asciiValue {
            return (ascii >= 0x20 && ascii < 0x7F) || ascii == 0x09 ? 1 : 0
        }
        let scalars = character.unicodeScalars
        guard let first = scalars.first(where: { width(of: $0) > 0 }) else { return 0 }
        if width(of: first) == 2 { return 2 }
        // ❤ is text by default, ❤️ (with VS16) an emoji; a keycap 1️⃣ too.
        if first.properties.isEmoji, scalars.contains("\u{FE0F}") { return 2 }
        return 1
    }

    /// The cells `text` takes on a line, not counting escape sequences (ESC up to the next
    /// letter, as the SGR styles chatdir writes). A newline counts 0: callers split lines on it.
    static func width(_ text: String) -> Int {
        var cells = 0
        var inEscape = false
        for character in text {
            if inEscape {
                if character.isLetter { inEscape = false }
            } else if character == "\u{1B}" {
                inEscape = true
            } else {
                cells += width(character)
            }
        }
        return cells
    }

    /// The cells one scalar takes on its own.
    static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x7F { return value >= 0x20 ? 1 : 0 }
        if value < 0xA0 { return 0 }
        // Latin-1 and Latin Extended: one cell each (terminals draw the soft hyphen U+00AD too).
        if value < 0x300 { return 1 }
        let properties = scalar.properties
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        if properties.isEmojiPresentation { return 2 }
        return isWide(value) ? 2 : 1
    }

    /// Whether `value` is East Asian Wide or Fullwidth (a binary search in ``wideRanges``).
    static func isWide(_ value: UInt32) -> Bool {
        guard value >= 0x1100 else { return false }
        var low = 0
        var high = wideRanges.count
        while low < high {
            let middle = (low + high) / 2
            let range = wideRanges[middle]
            if value < range.lower {
                high = middle
            } else if value > range.upper {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }

    /// Wide ranges, sorted: Unicode 18.0's East Asian Width W and F (EastAsianWidth.txt; the
    /// Yijing hexagrams beside CJK Extension A are W since 15.1, trigrams, monograms and counting
    /// rods since 16.0), adjacent ranges joined over unassigned gaps, and the rest of planes 2
    /// and 3; with U+3248–324F, ambiguous in Unicode and two cells in glibc's `wcwidth` (which
    /// tmux and most Linux terminals draw with). Where tables disagree the wider wins: a
    /// character counted one cell too many leaves a blank at the end of a line, one counted a
    /// cell too few makes the terminal wrap it and shifts the whole frame (a row with a hexagram
    /// cut at the edge was 61 cells on a 60-column screen).
    static let wideRanges: [(lower: UInt32, upper: UInt32)] = [
        (0x1100, 0x115F), (0x231A, 0x231B), (0x2329, 0x232A), (0x23E9, 0x23EC), (0x23F0, 0x23F0), (0x23F3, 0x23F3),
        (0x25FD, 0x25FE), (0x2614, 0x2615), (0x2630, 0x2637), (0x2648, 0x2653), (0x267F, 0x267F), (0x268A, 0x268F),
        (0x2693, 0x2693), (0x26A1, 0x26A1), (0x26AA, 0x26AB), (0x26BD, 0x26BE), (0x26C4, 0x26C5), (0x26CE, 0x26CE),
        (0x26D4, 0x26D4), (0x26EA, 0x26EA), (0x26F2, 0x26F3), (0x26F5, 0x26F5), (0x26FA, 0x26FA), (0x26FD, 0x26FD),
        (0x2705, 0x2705), (0x270A, 0x270B), (0x2728, 0x2728), (0x274C, 0x274C), (0x274E, 0x274E), (0x2753, 0x2755),
        (0x2757, 0x2757), (0x2795, 0x2797), (0x27B0, 0x27B0), (0x27BF, 0x27BF), (0x2B1B, 0x2B1C), (0x2B50, 0x2B50),
        (0x2B55, 0x2B55), (0x2E80, 0x303E), (0x3041, 0xA4C6), (0xA960, 0xA97C), (0xAC00, 0xD7A3), (0xF900, 0xFAFF),
        (0xFE10, 0xFE19), (0xFE30, 0xFE6B), (0xFF01, 0xFF60), (0xFFE0, 0xFFE6), (0x16FE0, 0x18D20), (0x18D80, 0x18DF2),
        (0x18E00, 0x19191), (0x191A0, 0x191D2), (0x1AFF0, 0x1B2FB), (0x1D300, 0x1D356), (0x1D360, 0x1D376),
        (0x1F004, 0x1F004), (0x1F0CF, 0x1F0CF), (0x1F18E, 0x1F18E), (0x1F191, 0x1F19A), (0x1F1AE, 0x1F1AE),
        (0x1F1E6, 0x1F320), (0x1F32D, 0x1F335), (0x1F337, 0x1F37C), (0x1F37E, 0x1F393), (0x1F3A0, 0x1F3CA),
        (0x1F3CF, 0x1F3D3), (0x1F3E0, 0x1F3F0), (0x1F3F4, 0x1F3F4), (0x1F3F8, 0x1F43E), (0x1F440, 0x1F440),
        (0x1F442, 0x1F4FC), (0x1F4FF, 0x1F53D), (0x1F54B, 0x1F54E), (0x1F550, 0x1F567), (0x1F57A, 0x1F57A),
        (0x1F595, 0x1F596), (0x1F5A4, 0x1F5A4), (0x1F5FB, 0x1F64F), (0x1F680, 0x1F6C5), (0x1F6CC, 0x1F6CC),
        (0x1F6D0, 0x1F6D2), (0x1F6D5, 0x1F6DF), (0x1F6EB, 0x1F6EC), (0x1F6F4, 0x1F6FC), (0x1F7DA, 0x1F7DA),
        (0x1F7E0, 0x1F7F0), (0x1F90C, 0x1F93A), (0x1F93C, 0x1F945), (0x1F947, 0x1F9FF), (0x1FA70, 0x1FAFA),
        (0x20000, 0x2FFFD), (0x30000, 0x3FFFD),
    ]
}
