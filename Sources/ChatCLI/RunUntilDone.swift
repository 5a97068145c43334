import ChatSystem
import Dispatch

/// Runs async work from a synchronous command and waits for it. SIGINT and SIGTERM cancel the
/// work (a write in progress finishes first) instead of killing the process.
func runUntilDone<T: Sendable>(interruptible: Bool, _ work: @escaping @Sendable () async -> T) -> T {
    let done = DispatchSemaphore(value: 0)
    let result = ResultBox<T>()
    let task = Task {
        result.value = await work()
        done.signal()
    }
    let signals = interruptible ? SignalWatch([.interrupt, .terminate]) { _ in task.cancel() } : nil
    done.wait()
    signals?.cancel()
    guard let value = result.value else { preconditionFailure("the task finished without a result") }
    return value
}

/// Carries a result from the task to the waiting thread (the semaphore orders the accesses).
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}
