import ChatSystem
import ChatTestSupport
import Foundation
import Testing

@Suite(.ownThreads) struct LockTests {
    @Test("four threads adding 10,000 times each under the lock lose no increment")
    func mutualExclusion() {
        let counter = Lock(0)
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread.detachNewThread {
                for _ in 0..<10_000 {
                    // Read, yield, write: without mutual exclusion the threads overwrite each other.
                    counter.withLock { value in
                        let seen = value
                        if seen % 97 == 0 { sched_yield() }
                        value = seen + 1
                    }
                }
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + 60) == .success)
        #expect(counter.withLock { $0 } == 40_000)
    }

    @Test("an error thrown inside withLock reaches the caller with its type, and the lock is free again")
    func throwingBody() {
        struct Refused: Error, Equatable {}
        let lock = Lock([1, 2])
        #expect(throws: Refused()) {
            try lock.withLock { (values: inout [Int]) throws(Refused) in
                values.append(3)
                throw Refused()
            }
        }
        // Not recursive: a lock still held after the throw would hang here, not fail.
        #expect(lock.withLock { $0 } == [1, 2, 3])
    }
}
