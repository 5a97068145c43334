import ChatDomain
import ChatStore
import ChatTestSupport
import Testing

@testable import ChatSync

/// A message whose body is over the server's cap must come back as a 413 the client can read
/// (the message fails once, with the reason), never as a reset it would retry forever.
@Suite(.ownThreads) struct OversizedBodyTests {
    /// Within both text limits (4,000 characters, 64,000 bytes of UTF-8), yet a body over the
    /// server's 64 KiB cap: each of the 1,000 control characters is one byte of text and six of
    /// JSON (`\u0001`), beside 3,000 letters with ten combining accents each (21 bytes).
    static let oversizedText = String(
        repeating: "a" + String(repeating: "\u{301}", count: 10) + "\u{1}" + "a"
            + String(repeating: "\u{301}", count: 10) + "a" + String(repeating: "\u{301}", count: 10), count: 1000)

    @Test("a message over the server's body cap is marked failed with the 413 reason, exactly once")
    func oversizedMessageFailsOnce() async throws {
        #expect(Self.oversizedText.count == 4000 && Self.oversizedText.utf8.count == 64_000)
        let directory = try TemporaryDirectory()
        let server = try TestServer()
        let alice = try clientStore("alice", in: directory)
        #expect(try await pass(alice, server).outcome == .complete)
        let ab = try ConversationID("ab")
        let outbox = Outbox(alice.conversation(ab))
        let entry = try outbox.enqueue(Self.oversizedText)
        try outbox.enqueue("small one after it")

        // The rule under test is the 413, not the clock: generous deadlines for a loaded machine.
        var patient = fastOptions
        patient.passBudget = .seconds(600)
        patient.requestTimeout = .seconds(300)
        let report = try await pass(alice, server, options: patient)
        #expect(report.outcome == .messageRejected, "\(report)")
        #expect(report.failed.count == 1 && report.sent == 1 && report.stillPending == 0, "\(report)")
        let left = try alice.conversation(ab).outbox()
        #expect(left.map(\.clientMessageID) == [entry.clientMessageID])
        #expect(left.first?.state == .failed)
        #expect(left.first?.error?.contains("413") == true, "\(left.first?.error ?? "no error")")
        #expect(try await server.messages("ab").map(\.text) == ["small one after it"])

        // A second pass does not send it again: failed stays failed until the user retries.
        let again = try await pass(alice, server, options: patient)
        #expect(again.failed.isEmpty && again.sent == 0, "\(again)")
        #expect(try alice.conversation(ab).outbox().first?.state == .failed)
    }
}
