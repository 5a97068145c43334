import ChatTestSupport
import Testing

@testable import ChatSync

/// ``ReconnectWake``: what ends the live worker's reconnect wait early, and what does not.
@Suite(.ownThreads) struct ReconnectWakeTests {
    @Test("an answer during the wait ends it early")
    func answerEndsWait() async throws {
        let wake = ReconnectWake()
        let waiting = Task { try await wake.wait(.seconds(600)) }
        // Answers until the wait takes one: it may not have started when the first comes.
        let answering = Task {
            while !Task.isCancelled {
                wake.serverAnswered()
                try? await Task.sleep(for: .milliseconds(5))
            }
        }
        defer { answering.cancel() }
        #expect(try await waiting.value == true)
    }

    @Test("an answer before the wait is forgotten: the wait runs its time")
    func answerBeforeIsForgotten() async throws {
        let wake = ReconnectWake()
        wake.serverAnswered()
        #expect(try await wake.wait(.milliseconds(20)) == false)
    }

    @Test("cancelling the waiting task ends the wait with CancellationError")
    func cancelled() async {
        let wake = ReconnectWake()
        let waiting = Task { try await wake.wait(.seconds(600)) }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
    }

}
