import ChatTestSupport
import Testing

@testable import ChatDomain

@Suite(.ownThreads) struct NameTests {
    @Test(
        "valid names are accepted as conversation and user IDs",
        arguments: [
            "c1", "alice", "A", "0", "Friday-dinner", "team_2026.q4", String(repeating: "x", count: 64),
        ])
    func validNames(_ name: String) throws {
        #expect(Name.isValid(name))
        #expect(try ConversationID(name).rawValue == name)
        #expect(try UserID(name).rawValue == name)
    }

    @Test(
        "invalid names are rejected with the reason",
        arguments: [
            ("", "is empty"),
            ("../x", "must start with a letter or digit"),
            ("..", "must start with a letter or digit"),
            (".hidden", "must start with a letter or digit"),
            ("-rf", "must start with a letter or digit"),
            ("a/b", "may contain only letters, digits, '.', '_' and '-'"),
            ("a b", "may contain only letters, digits, '.', '_' and '-'"),
            ("ä", "must start with a letter or digit"),
            ("café", "may contain only letters, digits, '.', '_' and '-'"),
            (String(repeating: "x", count: 65), "is 65 bytes long; at most 64 are allowed"),
            ("a\0b", "may contain only letters, digits, '.', '_' and '-'"),
        ])
    func invalidNames(_ name: String, reason: String) {
        #expect(!Name.isValid(name))
        #expect(Name.problem(with: name) == reason)
        #expect(throws: DomainError.invalidConversationID(name, reason: reason)) { try ConversationID(name) }
        #expect(throws: DomainError.invalidUserID(name, reason: reason)) { try UserID(name) }
    }
}
