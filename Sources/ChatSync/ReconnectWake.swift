import ChatSystem

/// Cuts the live worker's reconnect wait short when another request to the same server succeeds.
///
/// The live connection's backoff grows while the server is down (up to half a minute by
/// default), but the outbox keeps its own, shorter pace: after a restart the outbox went out
/// within a second while incoming messages waited for the rest of the live backoff. An answer
/// to any request proves the server is back, so ``serverAnswered()`` ends a ``wait(_:)`` under
/// way. An answer while no wait is under way is forgotten: it says nothing of a later drop.
final class ReconnectWake: Sendable {
    private struct State {
        /// A ``wait(_:)`` is under way.
        var waiting = false
        /// The server answered during this wait.
        var answered = false
        /// The waiting task was cancelled (the wait ended another way).
        var ended = false
        var continuation: CheckedContinuation<Void, Never>?
    }

    private let state = Lock(State())

    init() {}

    /// A request to the server succeeded: a wait under way ends now.
    func serverAnswered() {
        let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.waiting else { return nil }
            state.answered = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }

    /// Waits `delay`, or less when the server answers another request meanwhile; returns
    /// whether it was cut short. Throws `CancellationError` when the calling task is cancelled.
    func wait(_ delay: Duration) async throws -> Bool {
        state.withLock { $0 = State(waiting: true) }
        defer { state.withLock { $0 = State() } }
        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await Task.sleep(for: delay)
                return false
            }
            group.addTask { await self.answer() }
            defer { group.cancelAll() }
            return try await group.next() ?? false
        }
        // Either child may end first when the caller is cancelled.
        try Task.checkCancellation()
        return answered
    }

    /// Returns true once the server answered, false when cancelled first.
    private func answer() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state -> Bool in
                    if state.answered || state.ended { return true }
                    state.continuation = continuation
                    return false
                }
                if now { continuation.resume() }
            }
            return state.withLock { $0.answered }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.ended = true
                defer { state.continuation = nil }
                return state.continuation
            }
            continuation?.resume()
        }
    }
}
