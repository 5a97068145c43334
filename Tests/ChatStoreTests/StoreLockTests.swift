import ChatProcess
import ChatSystem
import ChatTestSupport
import Foundation
import Glibc
import Testing

@testable import ChatStore

@Suite(.ownThreads) struct StoreLockTests {
    @Test("one writer at a time; the lock is free again once the holder is gone")
    func exclusive() throws {
        let directory = try TemporaryDirectory()
        let store = try makeStore(in: directory)
        var writer: StoreWriter? = try StoreWriter(store: store)
        #expect(writer != nil)
        #expect(StoreLock.isHeld(storeRoot: store.root))
        do {
            _ = try StoreWriter(store: store)
            Issue.record("a second writer got the lock")
        } catch {
            guard case .locked = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(error.exitCode == 75)
            #expect(error.description.contains("only one sync worker may run per store"))
        }
        writer = nil
        #expect(!StoreLock.isHeld(storeRoot: store.root))
        _ = try StoreWriter(store: store)
    }

    @Test("the holder's pid is found in /proc/locks every time while other processes take and drop locks")
    func holderUnderChurn() throws {
        let directory = try TemporaryDirectory()
        // A child holds 150 locks, then the store's (the newest, so listed just after the locks
        // that come and go), and the table spans several pages: the kernel hands it out a page
        // per read, and a reader that skipped a line between two reads told `chatdir status` no
        // worker ran.
        let script = """
            import fcntl, os, sys, time
            fds = []
            for name in ["other-%d" % i for i in range(150)] + [".lock"]:
                fd = os.open(os.path.join(sys.argv[1], name), os.O_CREAT | os.O_RDWR, 0o600)
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fds.append(fd)
            open(os.path.join(sys.argv[1], "ready"), "w").close()
            time.sleep(120)
            """
        let holder = TestProcess()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", script, directory.path]
        try holder.run()
        defer {
            holder.terminate()
            holder.waitUntilExit()
        }
        try #require(waitUntil { FileManager.default.fileExists(atPath: directory.path + "/ready") })
        let stop = Lock(false)
        for index in 0..<2 {
            let path = directory.path + "/churn-\(index)"
            Thread.detachNewThread {
                while !stop.withLock({ $0 }) {
                    let fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
                    guard fd >= 0 else { return }
                    flock(fd, LOCK_EX)
                    close(fd)
                }
            }
        }
        defer { stop.withLock { $0 = true } }
        var found: [Int32?] = []
        for _ in 0..<200 { found.append(StoreLock.holder(storeRoot: directory.path)) }
        #expect(
            found.filter { $0 != holder.processIdentifier }.count == 0,
            "\(Set(found.map { $0.map(String.init) ?? "nil" }))")
    }
}
