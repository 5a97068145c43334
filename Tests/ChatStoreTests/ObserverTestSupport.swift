import ChatStore
import ChatSystem
import Foundation

/// A fresh directory under the system temp directory, removed when the value goes away.
final class ScratchDirectory: Sendable {
    let path: String

    init() throws {
        path =
            FileManager.default.temporaryDirectory.appendingPathComponent("chatdir-store-test-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func file(_ relative: String) -> String { path + "/" + relative }
}

/// Collects what a callback delivers on another thread, and waits (with a deadline, never a
/// fixed sleep) until what was collected satisfies a condition.
final class Collector<Value: Sendable>: Sendable {
    private let values = Lock<[Value]>([])

    func append(_ value: Value) {
        values.withLock { $0.append(value) }
    }

    var all: [Value] { values.withLock { $0 } }

    /// Waits until `condition` holds for the values so far; returns whether it did before `timeout` seconds.
    @discardableResult
    func wait(timeout: Double = 20, until condition: ([Value]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while ContinuousClock.now < deadline {
            if condition(all) { return true }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return condition(all)
    }
}

/// Descriptors of this process that are inotify instances (from /proc/self/fd).
func openInotifyDescriptors() -> Int {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    return names.filter {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0)) == "anon_inode:inotify"
    }.count
}

/// Every descriptor of this process.
func openDescriptors() -> Int {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).count
}
