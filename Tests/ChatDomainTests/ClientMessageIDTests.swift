import ChatTestSupport
import Testing

@testable import ChatDomain

@Suite(.ownThreads) struct ClientMessageIDTests {
    @Test(
        "client message IDs must be canonical UUIDs; case is kept as given",
        arguments: [
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
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }
}
