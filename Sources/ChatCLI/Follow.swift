import ChatStore
import ChatSystem
import Dispatch

/// The plumbing shared by `view --follow`, `list --follow` and `watch`.
enum Follow {
    /// Runs `body` on the concurrency runtime and blocks the calling (main) thread until it
    /// returns. Commands are synchronous; following is the one thing that needs async streams.
    static func block(_ body: @escaping @Sendable () async throws -> Int32) throws -> Int32 {
        let result = Lock<Result<Int32, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let outcome: Result<Int32, any Error>
            do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return try result.withLock { $0 }?.get() ?? 70
    }

    /// One stream of store values and signals, in arrival order.
    static func merge<Value: Sendable>(_ values: AsyncStream<Value>, _ signals: AsyncStream<TerminalSignal>)
        -> AsyncStream<FollowEvent<Value>>
    {
        let (stream, continuation) = AsyncStream.makeStream(of: FollowEvent<Value>.self)
        let forwardValues = Task {
            for await value in values { continuation.yield(.value(value)) }
            continuation.yield(.ended)
        }
        let forwardSignals = Task {
            for await signal in signals { continuation.yield(.signal(signal)) }
        }
        continuation.onTermination = { _ in
            forwardValues.cancel()
            forwardSignals.cancel()
        }
        return stream
    }
}
