import ChatDomain
import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

@Suite(.ownThreads) struct ConversationSearchTests {
    private func fixture(_ directory: TemporaryDirectory) throws -> Conversation {
        try pizzaConversation(directory)
    }

    private func hits(
        _ conversation: Conversation, _ matcher: TextMatcher, where include: (Message) -> Bool = { _ in true }
    ) throws -> [SearchHit] {
        var found: [SearchHit] = []
        try conversation.search(matcher, where: include) {
            found.append($0)
            return true
        }
        return found
    }

    @Test(
        "a fixed string finds what the library scan counts, oldest first, with every match's bytes",
        arguments: ["pizza", "Pizza", "\"pizza\"", "a\nn", "café", "✓", "message", "nowhere"])
    func fixedAgreesWithScan(word: String) throws {
        let directory = try TemporaryDirectory()
        let conversation = try fixture(directory)
        let found = try hits(conversation, .fixed(word))
        #expect(found.count == (try conversation.countMessages(containing: word)))
        #expect(found.map(\.message.sequence) == found.map(\.message.sequence).sorted())
        for hit in found {
            let bytes = Array(hit.message.text.utf8)
            #expect(!hit.matches.isEmpty)
            #expect(hit.matches.allSatisfy { Array(bytes[$0]) == Array(word.utf8) })
        }
    }

    @Test("two matches in one text are both marked")
    func everyMatch() throws {
        let directory = try TemporaryDirectory()
        let found = try hits(try fixture(directory), .fixed("pizza"))
        let twice = try #require(found.first { $0.message.sequence == 15 })
        #expect(twice.matches == [5..<10, 19..<24])
    }

    @Test("ignoring case folds each letter, ASCII and beyond, and marks the original bytes")
    func ignoringCase() throws {
        let directory = try TemporaryDirectory()
        let conversation = try fixture(directory)
        #expect(try hits(conversation, .ignoringCase("PIZZA")).count == 7)
        let cafe = try hits(conversation, .ignoringCase("CAFÉ"))
        #expect(cafe.map(\.message.sequence) == [24])
        let text = Array(try #require(cafe.first).message.text.utf8)
        #expect(cafe.first?.matches.map { String(decoding: text[$0], as: UTF8.self) } == ["café"])
    }

    @Test("a regex matches on bytes, anchors at the text's start, and marks each match")
    func regex() throws {
        let directory = try TemporaryDirectory()
        let conversation = try fixture(directory)
        #expect(try hits(conversation, .regex(try ExtendedRegex("^pizza"))).map(\.message.sequence) == [3, 9, 21])
        #expect(try hits(conversation, .regex(try ExtendedRegex("pizzas?$"))).map(\.message.sequence) == [15])
        #expect(try hits(conversation, .regex(try ExtendedRegex("PIZ+A", ignoreCase: true))).count == 7)
    }

    @Test("the filter sees every candidate first: only the hits it lets through")
    func filter() throws {
        let directory = try TemporaryDirectory()
        let conversation = try fixture(directory)
        #expect(
            try hits(conversation, .ignoringCase("pizza"), where: { $0.sequence > 10 }).map(\.message.sequence) == [
                12, 15, 21, 24,
            ])
    }

    @Test("returning false stops the search at once")
    func stops() throws {
        let directory = try TemporaryDirectory()
        let conversation = try fixture(directory)
        var seen: [Int] = []
        let finished = try conversation.search(.fixed("pizza")) {
            seen.append($0.message.sequence)
            return seen.count < 2
        }
        #expect(!finished)
        #expect(seen == [3, 6])
    }

    @Test("a record in another key order is read the general way, and no hit comes twice")
    func otherKeyOrder() throws {
        let directory = try TemporaryDirectory()
        let conversation = try fixture(directory)
        // Line 8 is message 7: its text first, mentioning pizza (after message 3 and 6 matched the fast way).
        try editSegment(conversation, "0000000001-0000000010.json") { lines in
            lines[7] = lines[7].replacingOccurrences(of: ",\"text\":\"message 7\"", with: "").replacingOccurrences(
                of: "{", with: "{\"text\":\"pizza first\",")
        }
        #expect(try hits(conversation, .fixed("pizza")).map(\.message.sequence) == [3, 6, 7, 9, 15, 21, 24])
    }

    @Test("a matching line that does not parse names the file and line")
    func damaged() throws {
        let directory = try TemporaryDirectory()
        let conversation = try fixture(directory)
        try breakPizzaLine(conversation)
        #expect {
            try hits(conversation, .fixed("pizza"))
        } throws: { isBrokenPizzaLine($0) }
    }
}
