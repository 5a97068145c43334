import ChatSystem
import Foundation

/// Runs `count` bodies at once, each on a thread of its own, and returns their results in order.
func concurrently<T: Sendable>(_ count: Int, _ body: @escaping @Sendable (Int) throws -> T) throws -> [T] {
    let results = Lock<[Int: Result<T, any Error>]>([:])
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            start.wait()
            let result = Result { try body(index) }
            results.withLock { $0[index] = result }
            group.leave()
        }
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    group.wait()
    return try (0..<count).map { index in try results.withLock { $0[index] }!.get() }
}
