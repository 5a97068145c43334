import ChatDomain
import ChatStore
@testable import ChatSync
import Testing
import ChatTestSupport

/// A message whose body is over the server's cap must come back as a 413 the client can read
/// (the message fails once, with the reason), never as a reset it would retry forever.
@Suite(.ownThreads) struct OversizedBodyTests {
    /// One character (a letter with 4,000,000 combining accents): within the 4,096-character
    /// text limit, but 8 MB of UTF-8: far over the server's 64 KiB body cap, and more than the
    /// socket buffers hold, so the client is still sending when the server refuses it.
    static let hugeCharacter = "a" + String(repeating: "\u{301}", count: 4_000_000)

    @Test("a message over the server's body cap is marked failed with the 413 reason, exactly once")
    func oversizedMessageFailsOnce() async throws {
        let directory = try TemporaryDirectory()
        let server = try LocalServer()
        let alice = try clientStore("alice", in: directory)
        #expect(try await pass(alice, server).outcome == .complete)
        let ab = try ConversationID("ab")
        let outbox = Outbox(alice.conversation(ab))
        let entry = try outbox.enqueue(Self.hugeCharacter)
        try outbox.enqueue("small one after it")

        // The rule under test is the 413, not the clock: under a load average of 19 the 8 MB
        // message took the pass past its 30 s budget (exit 75, still pending).
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
