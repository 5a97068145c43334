import Testing
@testable import ChatStore
import ChatTestSupport

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
            guard case .locked = error else { Issue.record("unexpected \(error)"); return }
            #expect(error.exitCode == 75)
            #expect(error.description.contains("only one sync worker may run per store"))
        }
        writer = nil
        #expect(!StoreLock.isHeld(storeRoot: store.root))
        _ = try StoreWriter(store: store)
    }
}
