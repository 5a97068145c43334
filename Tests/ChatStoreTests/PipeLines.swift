import Foundation

/// A child's stdout read on its own thread as it comes, so a test can wait for a line the
/// child has printed (with a deadline) while the child keeps running.
final class PipeLines: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var ended = false
    private let changed = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            while true {
                let chunk = handle.availableData
                lock.withLock { if chunk.isEmpty { ended = true } else { data += chunk } }
                changed.signal()
                if chunk.isEmpty { return }
            }
        }
    }

    /// The complete lines so far (a line cut by a kill is not one).
    var lines: [Substring] {
        let text = lock.withLock { String(decoding: data, as: UTF8.self) }
        return Array(text.split(separator: "\n", omittingEmptySubsequences: false).dropLast())
    }

    /// Waits until a complete line satisfies `condition`, the pipe ends, or `timeout` passes;
    /// returns whether such a line came.
    func wait(timeout: Duration, for condition: (Substring) -> Bool) -> Bool {
        let deadline = DispatchTime.now() + .nanoseconds(Int(timeout.components.seconds * 1_000_000_000))
        while true {
            if lines.contains(where: condition) { return true }
            if lock.withLock({ ended }) { return false }
            if changed.wait(timeout: deadline) == .timedOut { return lines.contains(where: condition) }
        }
    }

    /// Waits for the end of the pipe (the child exited and closed it) and returns every complete line.
    func waitForEnd() -> [Substring] {
        while !lock.withLock({ ended }) { changed.wait() }
        return lines
    }
}
