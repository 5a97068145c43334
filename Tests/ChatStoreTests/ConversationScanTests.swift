import ChatDomain
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// 25 messages in 3 segments of 10: every third mentions pizza, one "Pizza", one quotes (the
/// scan's and the search's fixture).
func pizzaConversation(_ directory: TemporaryDirectory) throws -> Conversation {
    let store = try makeStore(in: directory)
    let texts: [Int: String] = [
        3: "pizza tonight", 6: "more pizza?", 9: "pizzas for all", 12: "Pizza with a capital",
        15: "say \"pizza\" twice: pizza", 18: "no pie", 21: "pizza\nnew line", 24: "café pizza ✓",
    ]
    let messages = (1...25).map { message($0, text: texts[$0] ?? "message \($0)") }
    try StoreWriter(store: store).save(messages, in: c1)
    try Outbox(store.conversation(c1)).enqueue("pizza from the outbox is not counted")
    return store.conversation(c1)
}

/// Rewrites the lines of one segment file of `conversation` by hand (`edit` gets them 0-based).
func editSegment(_ conversation: Conversation, _ file: String, _ edit: (inout [String]) -> Void) throws {
    let path = conversation.messagesDirectory + "/" + file
    var lines = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
    edit(&lines)
    try lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
}

/// Line 6 of the second segment made into a record that mentions pizza and does not parse.
func breakPizzaLine(_ conversation: Conversation) throws {
    try editSegment(conversation, "0000000011-0000000020.json") { $0[5] = "{\"text\":\"pizza\",broken" }
}

/// Whether `error` names the line ``breakPizzaLine(_:)`` broke.
func isBrokenPizzaLine(_ error: any Error) -> Bool {
    guard case .damaged(let problem) = error as? StoreError else { return false }
    return problem.path == "conversations/c1/messages/0000000011-0000000020.json" && problem.line == 6
}

@Suite(.ownThreads) struct ConversationScanTests {
    private func fixture(_ directory: TemporaryDirectory) throws -> Conversation {
        try pizzaConversation(directory)
    }

    @Test(
        "counts the stored messages whose text holds the word, byte for byte and case-sensitive",
        arguments: [
            ("pizza", 6), ("Pizza", 1), ("piz", 6), ("\"pizza\"", 1), ("a\nn", 1), ("café", 1), ("✓", 1),
            ("message", 17), ("nowhere", 0), ("", 25),
        ])
    func counts(word: String, expected: Int) throws {
        let directory = try TemporaryDirectory()
        #expect(try fixture(directory).countMessages(containing: word) == expected)
    }

    @Test("words in field names or IDs are not counted: only the text is searched")
    func onlyText() throws {
        let directory = try TemporaryDirectory()
        let conversation = try fixture(directory)
        #expect(try conversation.countMessages(containing: "senderId") == 0)
        #expect(try conversation.countMessages(containing: "bob") == 0)
    }

    @Test("a segment in another JSON layout (the whole array on one line) is still searched")
    func otherLayout() throws {
        let directory = try TemporaryDirectory()
        let conversation = try fixture(directory)
        let path = conversation.messagesDirectory + "/0000000001-0000000010.json"
        let oneLine = try JSONSerialization.data(
            withJSONObject: JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))))
        try oneLine.write(to: URL(fileURLWithPath: path))
        #expect(try conversation.countMessages(containing: "pizza") == 6)
    }

    @Test("a record with its keys in another order is parsed, not cut at the wrong quote")
    func otherKeyOrder() throws {
        let directory = try TemporaryDirectory()
        let conversation = try fixture(directory)
        // Line 2 is message 1: move "text" first and make it mention pizza; the record then
        // ends with "sequence":1}, and line 3's text goes before a later key.
        try editSegment(conversation, "0000000001-0000000010.json") { lines in
            lines[1] = lines[1].replacingOccurrences(of: ",\"text\":\"message 1\"", with: "").replacingOccurrences(
                of: "{", with: "{\"text\":\"pizza first\",")
            lines[2] = lines[2].replacingOccurrences(
                of: ",\"text\":\"message 2\"}", with: ",\"text\":\"pizza middle\",\"qq\":\"x\"}")
        }
        #expect(try conversation.countMessages(containing: "pizza") == 8)
        #expect(try conversation.countMessages(containing: "qq") == 0)
    }

    @Test("a matching line that does not parse names the file and line")
    func damaged() throws {
        let directory = try TemporaryDirectory()
        let conversation = try fixture(directory)
        try breakPizzaLine(conversation)
        #expect {
            try conversation.countMessages(containing: "pizza")
        } throws: { isBrokenPizzaLine($0) }
    }

    @Test("an empty conversation has no matches")
    func empty() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        #expect(try store.conversation(c1).countMessages(containing: "pizza") == 0)
    }
}
