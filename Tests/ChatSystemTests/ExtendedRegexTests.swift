import ChatSystem
import Testing

@Suite struct ExtendedRegexTests {
    @Test(
        "matches are byte ranges, left to right, never overlapping; empty matches are skipped",
        arguments: [
            ("piz+a", "pizza pizzza pia", [0..<5, 6..<12]),
            ("^a", "aaa", [0..<1]),
            ("a$", "aaa", [2..<3]),
            ("(yes|no)!*", "no! yes!! maybe", [0..<3, 4..<9]),
            ("x*", "abc", []),
            ("é", "café", [3..<5]),
            ("b", "a\u{0}b", [2..<3]),
        ])
    func matches(pattern: String, text: String, expected: [Range<Int>]) throws {
        #expect(try ExtendedRegex(pattern).matches(in: Array(text.utf8)) == expected)
    }

    @Test("ignoreCase folds ASCII letters")
    func ignoreCase() throws {
        #expect(try ExtendedRegex("pizza", ignoreCase: true).matches(in: Array("PIZZA Pizza".utf8)) == [0..<5, 6..<11])
        #expect(try ExtendedRegex("pizza").matches(in: Array("PIZZA".utf8)).isEmpty)
    }

    @Test(
        "an invalid pattern is refused with regerror's reason and the pattern quoted",
        arguments: ["(", "a{2,1}", "[z-a]", "*a"])
    func invalid(pattern: String) {
        #expect {
            _ = try ExtendedRegex(pattern)
        } throws: { error in
            guard let error = error as? ExtendedRegex.CompileError else { return false }
            return error.pattern == pattern && !error.reason.isEmpty
                && error.description.hasPrefix(pattern.debugDescription + " is not a valid")
        }
    }
}
