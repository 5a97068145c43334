import ChatTestSupport
import Testing

@testable import ChatDomain

@Suite(.ownThreads) struct DomainErrorTests {
    @Test(
        "domain errors read as one actionable line",
        arguments: [
            (DomainError.emptyText, "the message text is empty or only white space; write something to send"),
            (.textTooLong(characters: 5000), "the message text is 5000 characters long; at most 4096 are allowed"),
            (.invalidSequence(0), "invalid sequence 0: sequences start at 1"),
            (
                .invalidConversationID("../x", reason: "must start with a letter or digit"),
                "invalid conversation ID \"../x\": it must start with a letter or digit (allowed: letters, digits, '.', '_', '-'; up to 64; starting with a letter or digit)"
            ),
            (
                .invalidClientMessageID("nope"),
                "invalid client message ID \"nope\": expected a UUID like 6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3"
            ),
        ])
    func messages(_ error: DomainError, expected: String) {
        #expect(error.description == expected)
    }

    @Test("text limits follow the wire contract: 1 to 4096 characters")
    func textLimits() throws {
        #expect(throws: DomainError.emptyText) { try validateMessageText("") }
        #expect(throws: DomainError.emptyText) { try validateNewMessageText(" \t\n\u{a0}\u{3000}") }
        try validateMessageText(" ")
        try validateNewMessageText(" x ")
        try validateMessageText(String(repeating: "é", count: 4096))
        #expect(throws: DomainError.textTooLong(characters: 4097)) {
            try validateMessageText(String(repeating: "a", count: 4097))
        }
    }

    @Test("quoted values make control characters visible")
    func quoting() {
        #expect(quoted("a\nb\"") == #""a\nb\"""#)
    }
}
