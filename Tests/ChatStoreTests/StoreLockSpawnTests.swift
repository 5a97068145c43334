import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@testable import ChatStore

/// The store lock is free the moment its holder lets go, even while this process starts child
/// processes. A child shares every descriptor from fork until its exec closes the O_CLOEXEC ones;
/// a lock released only by `close` stayed held by the child's copy for that moment, and the
/// next writer in this process was told "held by another chatdir process" (seen in parallel
/// `swift test` runs, where other tests start children all the time).
@Suite(.ownThreads) struct StoreLockSpawnTests {
    @Test("taking the lock again right after letting go never fails while another thread starts child processes")
    func releaseDuringSpawns() throws {
        let directory = try TemporaryDirectory()
        let root = directory.path
        let stop = Lock(false)
        let spawner = Thread {
            while !stop.withLock({ $0 }) {
                let child = TestProcess()
                child.executableURL = URL(fileURLWithPath: "/bin/true")
                try? child.run()
                child.waitUntilExit()
            }
        }
        spawner.start()
        defer { stop.withLock { $0 = true } }
        var refused = 0
        for _ in 0..<2_000 {
            do {
                _ = try StoreLock(storeRoot: root)
            } catch {
                guard case .locked = error else { throw error }
                refused += 1
            }
        }
        #expect(refused == 0, "\(refused) of 2,000 takes refused although nothing held the lock")
    }
}
