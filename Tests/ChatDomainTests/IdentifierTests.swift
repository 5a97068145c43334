import Testing
import ChatTestSupport
@testable import ChatDomain

@Suite(.ownThreads) struct IdentifierTests {
    @Test("valid names are accepted as conversation and user IDs", arguments: [
        "c1", "alice", "A", "0", "Friday-dinner", "team_2026.q4", String(repeating: "x", count: 64),
    ])
    func validNames(_ name: String) throws {
        #expect(Name.isValid(name))
        #expect(try ConversationID(name).rawValue == name)
        #expect(try UserID(name).rawValue == name)
    }

    @Test("invalid names are rejected with the reason", arguments: [
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

    @Test("client message IDs must be canonical UUIDs; case is kept as given", arguments: [
        ("6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3", true),
        ("6f1c2a4e-0b7d-4c1e-9a43-5d2e8f10a7b3", true),
        ("6F1C2A4E0B7D4C1E9A435D2E8F10A7B3", false),
        ("{6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7B3}", false),
        ("6F1C2A4E-0B7D-4C1E-9A43-5D2E8F10A7BZ", false),
        ("../../etc/passwd", false),
        ("", false),
    ])
    func clientMessageIDs(_ text: String, valid: Bool) {
        if valid {
            #expect((try? ClientMessageID(text))?.rawValue == text)
        } else {
            #expect(throws: DomainError.invalidClientMessageID(text)) { try ClientMessageID(text) }
        }
    }

    @Test("random client message IDs are upper-case version 4 UUIDs, and seeded ones repeat")
    func randomIDs() throws {
        let id = ClientMessageID.random()
        #expect(try ClientMessageID(id.rawValue) == id)
        #expect(id.rawValue == id.rawValue.uppercased())
        #expect(Array(id.rawValue)[14] == "4")
        var first = SeededGenerator(seed: 9)
        var second = SeededGenerator(seed: 9)
        #expect(ClientMessageID.random(using: &first) == ClientMessageID.random(using: &second))
    }
}

/// A tiny deterministic generator for tests (the store has its own SplitMix64).
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return state
    }
}
