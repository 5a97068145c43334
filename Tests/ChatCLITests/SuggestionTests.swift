import Testing

@testable import ChatCLI

/// "Did you mean …": which known words a typo is close to, and which it is not.
@Suite struct SuggestionTests {
    @Test(
        "the distance counts inserts, deletes, substitutions and a swapped pair as one edit each",
        arguments: [
            ("send", "send", 0),
            ("snd", "send", 1),
            ("sedn", "send", 1),
            ("serach", "search", 1),
            ("limt", "limit", 1),
            ("vew", "view", 1),
            ("ca", "abc", 3), // optimal string alignment: a swapped pair is not edited again
            ("", "view", 4),
        ])
    func distance(_ a: String, _ b: String, _ expected: Int) {
        #expect(Suggestion.distance(Array(a), Array(b)) == expected)
        #expect(Suggestion.distance(Array(b), Array(a)) == expected)
    }

    static let commands = Chatdir.commands.map { $0.spec.name }

    @Test(
        "a close typo gets the nearest words; a far one gets none",
        arguments: [
            ("snd", ["send"]),
            ("serach", ["search"]),
            ("sycn", ["sync"]),
            ("lst", ["list"]),
            ("veiw", ["view"]),
            ("seeed", ["seed"]),
            ("frobnicate", []),
            ("x", []),
            ("chatt", ["chat"]),
        ])
    func commandTypos(_ typed: String, _ expected: [String]) {
        #expect(Suggestion.closest(to: typed, among: Self.commands) == expected)
    }

    @Test("options are compared without their dashes: --limt is one edit from --limit")
    func options() {
        let view = ViewCommand.spec.allOptions.map(\.name)
        #expect(Suggestion.closest(to: "--limt", among: view) == ["--limit"])
        #expect(Suggestion.closest(to: "--jsno", among: view) == ["--json"])
        #expect(Suggestion.closest(to: "--colour", among: view) == [])
    }

    @Test("the question names one word, or several equally near ones")
    func question() {
        #expect(Suggestion.question(["send"]) == "did you mean `send`?")
        #expect(Suggestion.question(["seed", "send"]) == "did you mean `seed` or `send`?")
        #expect(Suggestion.question(["a", "b", "c"]) == "did you mean `a`, `b` or `c`?")
        #expect(Suggestion.question([]) == nil)
    }
}
